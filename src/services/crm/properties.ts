/**
 * @module Property definitions of `/crm/v3/properties/{objectType}`: the built-in properties of each
 * object type (not stored) and an account's custom ones (`crm_properties`). Search accepts the names
 * defined here; record writes accept any name, defined or not (docs/reference/crm.md "Properties").
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmProperties, crmPropertyGroups, isCustomType, type BuiltInObjectType, type ObjectType, type PropertyOption } from "../../db/tables/crm";
import { customTypeInfo } from "./object-types";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { ACTIVITY_BUILT_IN, ACTIVITY_DEFAULTS, ACTIVITY_GROUP, ACTIVITY_SEARCHABLE, type BuiltIn, type BuiltInType } from "./activity-properties";

export type PropertyType = BuiltInType;

export interface PropertyDef {
  name: string;
  label: string;
  type: PropertyType;
  fieldType: string;
  groupName: string;
  description: string;
  options: PropertyOption[];
  displayOrder: number;
  hidden: boolean;
  formField: boolean;
  hasUniqueValue: boolean;
  hubspotDefined: boolean;
  createdAt?: number;
  updatedAt?: number;
}

/** The group a type's built-in properties sit in (contacts: `contactinformation`, as on the real service). */
export const DEFAULT_GROUP: Record<BuiltInObjectType, string> = {
  contacts: "contactinformation",
  companies: "companyinformation",
  deals: "dealinformation",
  products: "productinformation",
  line_items: "lineiteminformation",
  tickets: "ticketinformation",
  ...ACTIVITY_GROUP,
};

/** System properties every record answers from its columns (src/routes/crm/objects.ts present). */
const SYSTEM: BuiltIn[] = [
  ["hs_object_id", "number"],
  ["createdate", "datetime"],
  ["lastmodifieddate", "datetime"],
  ["hs_lastmodifieddate", "datetime"],
];

/** Built-in stored properties per type: name and type (strings unless said otherwise). */
const BUILT_IN: Record<BuiltInObjectType, BuiltIn[]> = {
  contacts: [
    ["email", "string"], ["firstname", "string"], ["lastname", "string"], ["phone", "string"], ["mobilephone", "string"],
    ["fax", "string"], ["company", "string"], ["website", "string"], ["jobtitle", "string"], ["address", "string"],
    ["city", "string"], ["state", "string"], ["zip", "string"], ["country", "string"], ["hs_additional_emails", "string"],
    ["lifecyclestage", "enumeration"],
  ],
  companies: [["name", "string"], ["domain", "string"], ["website", "string"], ["phone", "string"], ["city", "string"], ["country", "string"], ["industry", "string"], ["description", "string"]],
  deals: [["dealname", "string"], ["amount", "number"], ["closedate", "datetime"], ["dealstage", "enumeration"], ["pipeline", "enumeration"], ["dealtype", "enumeration"], ["description", "string"]],
  products: [["name", "string"], ["description", "string"], ["price", "number"], ["hs_sku", "string"]],
  line_items: [["name", "string"], ["description", "string"], ["price", "number"], ["quantity", "number"], ["hs_sku", "string"], ["hs_product_id", "number"]],
  tickets: [["subject", "string"], ["content", "string"], ["hs_pipeline", "enumeration"], ["hs_pipeline_stage", "enumeration"], ["hs_ticket_priority", "enumeration"], ["hs_ticket_category", "enumeration"]],
  ...ACTIVITY_BUILT_IN,
};


/** The properties a v3 read answers with when it names none (the real service's defaults), per type. */
export const DEFAULT_PROPERTIES: Record<BuiltInObjectType, string[]> = {
  contacts: ["createdate", "email", "firstname", "hs_object_id", "lastmodifieddate", "lastname"],
  companies: ["createdate", "domain", "hs_lastmodifieddate", "hs_object_id", "name"],
  deals: ["amount", "closedate", "createdate", "dealname", "dealstage", "hs_lastmodifieddate", "hs_object_id", "pipeline"],
  products: ["createdate", "description", "hs_lastmodifieddate", "hs_object_id", "name", "price"],
  line_items: ["createdate", "hs_lastmodifieddate", "hs_object_id", "name", "price", "quantity"],
  tickets: ["content", "createdate", "hs_lastmodifieddate", "hs_object_id", "hs_pipeline", "hs_pipeline_stage", "hs_ticket_priority", "subject"],
  notes: ACTIVITY_DEFAULTS,
  tasks: ACTIVITY_DEFAULTS,
  calls: ACTIVITY_DEFAULTS,
  meetings: ACTIVITY_DEFAULTS,
  emails: ACTIVITY_DEFAULTS,
  communications: ACTIVITY_DEFAULTS,
  postal_mail: ACTIVITY_DEFAULTS,
  leads: ACTIVITY_DEFAULTS,
};

/**
 * A custom type's records answer, by default, the system properties and the schema's primary display
 * property (the real service's custom object reads answer hs_object_id, hs_createdate and
 * hs_lastmodifieddate, and the display property when the schema has one).
 */
export function defaultPropertiesOf(type: ObjectType): string[] {
  if (!isCustomType(type)) return DEFAULT_PROPERTIES[type];
  const primary = customTypeInfo(type).primaryDisplayProperty;
  return ["hs_createdate", "hs_lastmodifieddate", "hs_object_id", ...(primary ? [primary] : [])];
}

/** The group of a type's built-in properties; a custom type's is `<name>_information`. */
export const defaultGroupOf = (type: ObjectType) => (isCustomType(type) ? `${customTypeInfo(type).name}_information` : DEFAULT_GROUP[type]);

/** What `query` of a search reads: a custom type's schema names its searchable properties. */
export const searchableOf = (type: ObjectType) => (isCustomType(type) ? customTypeInfo(type).searchableProperties : SEARCHABLE[type]);

/** A column-backed property's v3 value (the id, or the record's ISO dates); undefined for a stored one. */
export function systemPropertyValue(name: string, id: number, createdAt: string, updatedAt: string): string | undefined {
  if (name === "hs_object_id") return String(id);
  if (name === "createdate" || name === "hs_createdate") return createdAt;
  if (name === "lastmodifieddate" || name === "hs_lastmodifieddate") return updatedAt;
  return undefined;
}

/** The system properties every v3 read answers with, whatever `properties` asks for (as on the real service). */
export const ALWAYS_ANSWERED = ["hs_object_id", "createdate", "lastmodifieddate"];

/**
 * The property names a v3 read (get, list, batch read, search) answers with: the asked ones, or the type's
 * defaults when none are asked, and always the system ones. Each appears once, in that order.
 */
export const answeredProperties = (type: ObjectType, asked?: string[]) => [...new Set([...(asked?.length ? asked : defaultPropertiesOf(type)), ...ALWAYS_ANSWERED])];


/** The properties `query` searches per type. */
export const SEARCHABLE: Record<BuiltInObjectType, string[]> = {
  contacts: ["firstname", "lastname", "email", "phone", "hs_additional_emails", "fax", "mobilephone", "company"],
  companies: ["name", "website", "domain", "phone"],
  deals: ["dealname", "pipeline", "dealstage", "description", "dealtype"],
  products: ["name", "description", "price", "hs_sku"],
  line_items: ["name", "description", "price", "quantity", "hs_sku"],
  tickets: ["subject", "content", "hs_pipeline_stage", "hs_ticket_category"],
  ...ACTIVITY_SEARCHABLE,
};

const labelOf = (name: string) => name.replace(/^hs_/, "").replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
const fieldTypeOf = (type: PropertyType) =>
  ({ string: "text", number: "number", date: "date", datetime: "date", enumeration: "select", bool: "booleancheckbox" })[type];

const optionsOf = (values: string[] = []): PropertyOption[] =>
  values.map((value, i) => ({ label: value.charAt(0) + value.slice(1).toLowerCase().replace(/_/g, " "), value, description: "", displayOrder: i, hidden: false }));

/**
 * The record types people own carry `hubspot_owner_id`, as on the real service (activities and leads list it
 * among their own); its options are the account's owners (src/services/crm/values.ts).
 */
const OWNED: ReadonlySet<ObjectType> = new Set(["contacts", "companies", "deals", "tickets"]);
const OWNER_PROPERTY: BuiltIn = ["hubspot_owner_id", "enumeration"];

function builtIns(type: ObjectType): PropertyDef[] {
  return [...SYSTEM, ...(isCustomType(type) ? [] : BUILT_IN[type]), ...(OWNED.has(type) ? [OWNER_PROPERTY] : [])].map(([name, t, values], i) => ({
    name,
    label: labelOf(name),
    type: t,
    fieldType: fieldTypeOf(t),
    groupName: defaultGroupOf(type),
    description: "",
    options: optionsOf(values),
    displayOrder: i,
    hidden: false,
    formField: !SYSTEM.some(([s]) => s === name),
    hasUniqueValue: name === "hs_object_id",
    hubspotDefined: true,
  }));
}

const BUILT_IN_DEFS = new Map<ObjectType, Map<string, PropertyDef>>(
  (Object.keys(BUILT_IN) as ObjectType[]).map((t) => [t, new Map(builtIns(t).map((d) => [d.name, d]))]),
);

/** A custom type's built-in properties are the system ones only (four, built when asked). */
const builtInDefs = (type: ObjectType): Map<string, PropertyDef> =>
  BUILT_IN_DEFS.get(type) ?? new Map(builtIns(type).map((d) => [d.name, d]));

export const isBuiltIn = (type: ObjectType, name: string) => builtInDefs(type).has(name);

/** A built-in property's definition; undefined for a custom or unknown name. */
export const builtInDefinition = (type: ObjectType, name: string) => builtInDefs(type).get(name);

type Row = typeof crmProperties.$inferSelect;
export const fromRow = (r: Row): PropertyDef => ({
  name: r.name,
  label: r.label,
  type: r.type as PropertyType,
  fieldType: r.fieldType,
  groupName: r.groupName,
  description: r.description,
  options: r.options,
  displayOrder: r.displayOrder,
  hidden: r.hidden,
  formField: r.formField,
  hasUniqueValue: r.hasUniqueValue,
  hubspotDefined: false,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

const custom = (db: Db, portalId: number, type: ObjectType, name?: string) =>
  db
    .select()
    .from(crmProperties)
    .where(and(eq(crmProperties.portalId, portalId), eq(crmProperties.objectType, type), name === undefined ? undefined : eq(crmProperties.name, name)));

/** Every property of the type: built-in first, then the account's custom ones by name (one query). */
export async function listProperties(db: Db, portalId: number, type: ObjectType): Promise<PropertyDef[]> {
  const rows = await custom(db, portalId, type).orderBy(asc(crmProperties.name)).all();
  return [...builtInDefs(type).values(), ...rows.map(fromRow)];
}

/**
 * The definitions of `names` (those that exist): built-in ones from memory, custom ones in one query, and
 * no query at all when every name is built in (a custom property never shadows a built-in name).
 */
export async function definitionsOf(db: Db, portalId: number, type: ObjectType, names: string[]): Promise<Map<string, PropertyDef>> {
  const builtIns = builtInDefs(type);
  const out = new Map<string, PropertyDef>();
  const others = new Set<string>();
  for (const n of names) {
    const def = builtIns.get(n);
    if (def) out.set(n, def);
    else others.add(n);
  }
  if (others.size === 0) return out;
  const rows = await db
    .select()
    .from(crmProperties)
    .where(and(eq(crmProperties.portalId, portalId), eq(crmProperties.objectType, type), sql`${crmProperties.name} in (select value from json_each(${JSON.stringify([...others])}))`))
    .all();
  for (const r of rows) out.set(r.name, fromRow(r));
  return out;
}

export async function getProperty(db: Db, portalId: number, type: ObjectType, name: string): Promise<PropertyDef> {
  const builtIn = builtInDefs(type).get(name);
  if (builtIn) return builtIn;
  const row = await custom(db, portalId, type, name).get();
  if (!row) throw notFound(`Property ${name} does not exist on ${type}`);
  return fromRow(row);
}

/**
 * A property's `groupName` must name a group of its type: a 400 naming the group otherwise. The check reads
 * before the write; the archive of a group refuses while a property sits in it, so the pair cannot drift
 * apart except by a concurrent archive between the two statements (a window of one request).
 */
export async function requireGroup(db: Db, portalId: number, type: ObjectType, name: string): Promise<void> {
  if (name === defaultGroupOf(type)) return;
  const row = await db.select({ name: crmPropertyGroups.name }).from(crmPropertyGroups).where(and(eq(crmPropertyGroups.portalId, portalId), eq(crmPropertyGroups.objectType, type), eq(crmPropertyGroups.name, name))).get();
  if (!row) {
    throw badRequest(`Property group ${name} does not exist on ${type}`, { errors: [{ message: `groupName: unknown property group ${name}`, in: "body", context: { groupName: [name] } }] });
  }
}

export interface PropertyInput {
  name: string;
  label: string;
  type: PropertyType;
  fieldType: string;
  groupName: string;
  description?: string;
  options?: Partial<PropertyOption>[];
  displayOrder?: number;
  hidden?: boolean;
  formField?: boolean;
  hasUniqueValue?: boolean;
}

const options = (input: Partial<PropertyOption>[] = []): PropertyOption[] =>
  input.map((o, i) => ({ label: o.label ?? o.value ?? "", value: o.value ?? "", description: o.description ?? "", displayOrder: o.displayOrder ?? i, hidden: o.hidden ?? false }));

/** An enumeration needs its options; other types take none. Field names in errors are the body's. */
function checkOptions(type: PropertyType, opts: PropertyOption[] | undefined, given: boolean) {
  if (type === "enumeration" && (!opts || opts.length === 0)) {
    throw badRequest("An enumeration property needs at least one option", { errors: [{ message: "options: required for type enumeration", in: "body", context: { propertyName: ["options"] } }] });
  }
  if (type !== "enumeration" && given && opts && opts.length > 0) {
    throw badRequest(`A ${type} property takes no options`, { errors: [{ message: `options: not allowed for type ${type}`, in: "body", context: { propertyName: ["options"] } }] });
  }
}

export async function createProperty(db: Db, portalId: number, type: ObjectType, input: PropertyInput, now: number): Promise<PropertyDef> {
  if (isBuiltIn(type, input.name)) throw conflict(`Property ${input.name} already exists on ${type} (built in)`);
  const opts = options(input.options);
  checkOptions(input.type, opts, input.options !== undefined);
  await requireGroup(db, portalId, type, input.groupName);
  const row = await db
    .insert(crmProperties)
    .values({
      portalId,
      objectType: type,
      name: input.name,
      label: input.label,
      type: input.type,
      fieldType: input.fieldType,
      groupName: input.groupName,
      description: input.description ?? "",
      options: opts,
      displayOrder: input.displayOrder ?? -1,
      hidden: input.hidden ?? false,
      formField: input.formField ?? false,
      hasUniqueValue: input.hasUniqueValue ?? false,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning()
    .get();
  if (!row) throw conflict(`Property ${input.name} already exists on ${type}`);
  return fromRow(row);
}

export type PropertyPatch = Partial<Omit<PropertyInput, "name" | "hasUniqueValue">>;

const readOnly = (type: ObjectType, name: string) =>
  badRequest(`Property ${name} of ${type} is built in and cannot be changed or archived`, { errors: [{ message: "built-in property", in: "path", context: { propertyName: ["propertyName"] } }] });

export async function updateProperty(db: Db, portalId: number, type: ObjectType, name: string, patch: PropertyPatch, now: number): Promise<PropertyDef> {
  if (isBuiltIn(type, name)) throw readOnly(type, name);
  const current = await getProperty(db, portalId, type, name);
  const nextType = patch.type ?? current.type;
  const opts = patch.options ? options(patch.options) : nextType === "enumeration" ? current.options : [];
  checkOptions(nextType, opts, patch.options !== undefined);
  if (patch.groupName !== undefined) await requireGroup(db, portalId, type, patch.groupName);
  const row = await db
    .update(crmProperties)
    .set({
      ...(patch.label !== undefined ? { label: patch.label } : {}),
      ...(patch.type !== undefined ? { type: patch.type } : {}),
      ...(patch.fieldType !== undefined ? { fieldType: patch.fieldType } : {}),
      ...(patch.groupName !== undefined ? { groupName: patch.groupName } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.displayOrder !== undefined ? { displayOrder: patch.displayOrder } : {}),
      ...(patch.hidden !== undefined ? { hidden: patch.hidden } : {}),
      ...(patch.formField !== undefined ? { formField: patch.formField } : {}),
      options: opts,
      updatedAt: now,
    })
    .where(and(eq(crmProperties.portalId, portalId), eq(crmProperties.objectType, type), eq(crmProperties.name, name)))
    .returning()
    .get();
  if (!row) throw notFound(`Property ${name} does not exist on ${type}`);
  return fromRow(row);
}

/** Deletes the definition; values records hold stay (and stay readable), but search no longer accepts the name. */
export async function archiveProperty(db: Db, portalId: number, type: ObjectType, name: string): Promise<void> {
  if (isBuiltIn(type, name)) throw readOnly(type, name);
  const gone = await db
    .delete(crmProperties)
    .where(and(eq(crmProperties.portalId, portalId), eq(crmProperties.objectType, type), eq(crmProperties.name, name)))
    .returning({ name: crmProperties.name })
    .get();
  if (!gone) throw notFound(`Property ${name} does not exist on ${type}`);
}
