/**
 * @module Property definitions of `/crm/v3/properties/{objectType}`: the built-in properties of each
 * object type (not stored) and an account's custom ones (`crm_properties`). Search accepts the names
 * defined here; record writes accept any name, defined or not (docs/reference/crm.md "Properties").
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmProperties, crmPropertyGroups, isCustomType, type BuiltInObjectType, type ObjectType, type PropertyOption } from "../../db/tables/crm";
import { customTypeInfo } from "./object-types";
import { requireNoDuplicates, uniquePropertiesOf } from "./unique";
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
    ["lifecyclestage", "enumeration", ["subscriber", "lead", "marketingqualifiedlead", "salesqualifiedlead", "opportunity", "customer", "evangelist", "other"]],
  ],
  companies: [["name", "string"], ["domain", "string"], ["website", "string"], ["phone", "string"], ["city", "string"], ["country", "string"], ["industry", "string"], ["description", "string"]],
  deals: [["dealname", "string"], ["amount", "number"], ["closedate", "datetime"], ["dealstage", "enumeration"], ["pipeline", "enumeration"], ["dealtype", "enumeration", ["newbusiness", "existingbusiness"]], ["description", "string"]],
  products: [["name", "string"], ["description", "string"], ["price", "number"], ["hs_sku", "string"]],
  line_items: [["name", "string"], ["description", "string"], ["price", "number"], ["quantity", "number"], ["hs_sku", "string"], ["hs_product_id", "number"]],
  tickets: [["subject", "string"], ["content", "string"], ["hs_pipeline", "enumeration"], ["hs_pipeline_stage", "enumeration"], ["hs_ticket_priority", "enumeration", ["LOW", "MEDIUM", "HIGH", "URGENT"]], ["hs_ticket_category", "enumeration", ["PRODUCT_ISSUE", "BILLING_ISSUE", "FEATURE_REQUEST", "GENERAL_INQUIRY"]]],
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

/** The real service's labels of the built-in properties; others are labelled from their name. */
const LABELS: Record<string, string> = {
  hs_object_id: "Record ID", createdate: "Create Date", lastmodifieddate: "Last Modified Date", hs_lastmodifieddate: "Last Modified Date",
  email: "Email", firstname: "First Name", lastname: "Last Name", phone: "Phone Number", mobilephone: "Mobile Phone Number", fax: "Fax Number",
  company: "Company Name", website: "Website URL", jobtitle: "Job Title", address: "Street Address", city: "City", state: "State/Region",
  zip: "Postal Code", country: "Country/Region", hs_additional_emails: "Additional email addresses", lifecyclestage: "Lifecycle Stage",
  domain: "Company Domain Name", industry: "Industry", description: "Description", dealname: "Deal Name", amount: "Amount",
  closedate: "Close Date", dealstage: "Deal Stage", pipeline: "Pipeline", dealtype: "Deal Type", price: "Unit price", hs_sku: "SKU",
  quantity: "Quantity", hs_product_id: "Product ID", subject: "Ticket name", content: "Ticket description", hs_pipeline: "Pipeline",
  hs_pipeline_stage: "Ticket status", hs_ticket_priority: "Priority", hs_ticket_category: "Category",
};
/** Labels that differ per type: a company's `name` and each type's owner. */
const TYPE_LABELS: Partial<Record<ObjectType, Record<string, string>>> = {
  contacts: { hubspot_owner_id: "Contact owner" },
  companies: { name: "Company name", hubspot_owner_id: "Company owner" },
  deals: { hubspot_owner_id: "Deal owner", description: "Deal Description" },
  tickets: { hubspot_owner_id: "Ticket owner" },
  products: { name: "Name" },
  line_items: { name: "Name" },
};
/** Activities keep labels made from their names, except the system properties every type has. */
const generic = (type: ObjectType, name: string) => Object.hasOwn(ACTIVITY_BUILT_IN, type) && !SYSTEM.some(([s]) => s === name);
const labelOf = (type: ObjectType, name: string) =>
  TYPE_LABELS[type]?.[name] ?? (generic(type, name) ? undefined : LABELS[name]) ?? name.replace(/^hs_/, "").replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
const fieldTypeOf = (type: PropertyType) =>
  ({ string: "text", number: "number", date: "date", datetime: "date", enumeration: "select", bool: "booleancheckbox" })[type];

/** The real service's labels of built-in options whose value does not spell them (`marketingqualifiedlead`). */
const OPTION_LABELS: Record<string, string> = {
  marketingqualifiedlead: "Marketing Qualified Lead",
  salesqualifiedlead: "Sales Qualified Lead",
  newbusiness: "New Business",
  existingbusiness: "Existing Business",
  PRODUCT_ISSUE: "Product Issue",
  BILLING_ISSUE: "Billing Issue",
  FEATURE_REQUEST: "Feature Request",
  GENERAL_INQUIRY: "General Inquiry",
};

const optionsOf = (values: string[] = []): PropertyOption[] =>
  values.map((value, i) => ({ label: OPTION_LABELS[value] ?? value.charAt(0).toUpperCase() + value.slice(1).toLowerCase().replace(/_/g, " "), value, description: "", displayOrder: i, hidden: false }));

/**
 * The record types people own carry `hubspot_owner_id`, as on the real service (activities and leads list it
 * among their own); its options are the account's owners (src/services/crm/values.ts).
 */
const OWNED: ReadonlySet<ObjectType> = new Set(["contacts", "companies", "deals", "tickets"]);
const OWNER_PROPERTY: BuiltIn = ["hubspot_owner_id", "enumeration"];

function builtIns(type: ObjectType): PropertyDef[] {
  return [...SYSTEM, ...(isCustomType(type) ? [] : BUILT_IN[type]), ...(OWNED.has(type) ? [OWNER_PROPERTY] : [])].map(([name, t, values], i) => ({
    name,
    label: labelOf(type, name),
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
/** The names of the type's built-in properties. */
export const builtInNames = (type: ObjectType): string[] => [...builtInDefs(type).keys()];

type Row = typeof crmProperties.$inferSelect;
export const fromRow = (r: Omit<Row, "portalId" | "objectType">): PropertyDef => ({
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
  const rows = await db.$client.prepare(LIST_CUSTOM).bind(portalId, type).raw<CustomRow>();
  return [...builtInDefs(type).values(), ...rows.map(fromArray)];
}

/**
 * Constant text: every record page and form reads the type's definitions, and building the statement with
 * drizzle's query builder cost more Worker CPU than D1 answering it.
 */
const LIST_CUSTOM = `select name, label, type, field_type, group_name, description, options, display_order, hidden, form_field,
    has_unique_value, created_at, updated_at
  from crm_properties where portal_id = ?1 and object_type = ?2 order by name`;
type CustomRow = [string, string, string, string, string, string, string, number, number, number, number, number, number];
const fromArray = ([name, label, type, fieldType, groupName, description, options, displayOrder, hidden, formField, hasUniqueValue, createdAt, updatedAt]: CustomRow): PropertyDef =>
  fromRow({ name, label, type, fieldType, groupName, description, options: JSON.parse(options) as PropertyOption[], displayOrder, hidden: hidden === 1, formField: formField === 1, hasUniqueValue: hasUniqueValue === 1, createdAt, updatedAt });

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
function checkOptions(type: PropertyType, opts: PropertyOption[] | undefined, given: boolean, at = "") {
  if (type === "enumeration" && (!opts || opts.length === 0)) {
    throw badRequest("An enumeration property needs at least one option", { errors: [{ message: `${at}options: required for type enumeration`, in: "body", context: { propertyName: [`${at}options`] } }] });
  }
  if (type !== "enumeration" && given && opts && opts.length > 0) {
    throw badRequest(`A ${type} property takes no options`, { errors: [{ message: `${at}options: not allowed for type ${type}`, in: "body", context: { propertyName: [`${at}options`] } }] });
  }
}

/** At most this many unique properties per object type, as on the real service. */
export const MAX_UNIQUE_PROPERTIES = 10;

/**
 * A unique property is a single-line text or a number (the real service's rule: only those can hold an
 * identifying value), at most MAX_UNIQUE_PROPERTIES per type, and the records holding it must not already
 * share a value. `at` prefixes the field name in errors (`inputs.2.`).
 */
async function checkUnique(db: Db, portalId: number, type: ObjectType, input: PropertyInput, at: string): Promise<void> {
  if (!input.hasUniqueValue) return;
  if ((await uniquePropertiesOf(db, portalId, type)).length >= MAX_UNIQUE_PROPERTIES) {
    const message = `${type} already has ${MAX_UNIQUE_PROPERTIES} unique properties, the most a type may have`;
    throw badRequest(message, { errors: [{ message: `hasUniqueValue: ${message}`, in: "body", context: { propertyName: [`${at}hasUniqueValue`] } }] });
  }
  await checkUniqueShape(db, portalId, type, input, at);
}

/** The checks of a create that read nothing but the input; `at` prefixes field names (`inputs.2.`). */
export function checkPropertyInput(type: ObjectType, input: PropertyInput, at = ""): void {
  if (isBuiltIn(type, input.name)) throw conflict(`Property ${input.name} already exists on ${type} (built in)`);
  checkOptions(input.type, options(input.options), input.options !== undefined, at);
}

export async function createProperty(db: Db, portalId: number, type: ObjectType, input: PropertyInput, now: number): Promise<PropertyDef> {
  checkPropertyInput(type, input);
  await requireGroup(db, portalId, type, input.groupName);
  await checkUnique(db, portalId, type, input, "");
  const row = await db.insert(crmProperties).values(propertyRow(portalId, type, input, now)).onConflictDoNothing().returning().get();
  if (!row) throw conflict(`Property ${input.name} already exists on ${type}`);
  return fromRow(row);
}

/** The stored row of a new custom property. */
export function propertyRow(portalId: number, type: ObjectType, input: PropertyInput, now: number): typeof crmProperties.$inferInsert {
  return {
    portalId,
    objectType: type,
    name: input.name,
    label: input.label,
    type: input.type,
    fieldType: input.fieldType,
    groupName: input.groupName,
    description: input.description ?? "",
    options: options(input.options),
    displayOrder: input.displayOrder ?? -1,
    hidden: input.hidden ?? false,
    formField: input.formField ?? false,
    hasUniqueValue: input.hasUniqueValue ?? false,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Creates up to 100 properties all or none (`batch/create`): every input is checked (names distinct, not
 * built in, not held, groups existing, unique ones free of shared values) before one db.batch inserts them;
 * a name taken meanwhile makes the batch a 409 and nothing is created.
 */
export async function createProperties(db: Db, portalId: number, type: ObjectType, inputs: PropertyInput[], now: number): Promise<PropertyDef[]> {
  const seen = new Map<string, number>();
  inputs.forEach((input, i) => {
    const first = seen.get(input.name);
    if (first !== undefined) throw badRequest(`inputs.${i}.name: ${input.name} is also inputs.${first}.name`, { errors: [{ message: `inputs.${i}.name: the same name as inputs.${first}`, in: "body", context: { propertyName: [`inputs.${i}.name`] } }] });
    seen.set(input.name, i);
    checkPropertyInput(type, input, `inputs.${i}.`);
  });
  const held = await definitionsOf(db, portalId, type, inputs.map((i) => i.name));
  const taken = inputs.find((i) => held.has(i.name));
  if (taken) throw conflict(`Property ${taken.name} already exists on ${type}`);
  for (const group of new Set(inputs.map((i) => i.groupName))) await requireGroup(db, portalId, type, group);
  const uniques = inputs.filter((i) => i.hasUniqueValue);
  if (uniques.length && (await uniquePropertiesOf(db, portalId, type)).length + uniques.length > MAX_UNIQUE_PROPERTIES) {
    throw badRequest(`${type} may have at most ${MAX_UNIQUE_PROPERTIES} unique properties`, { errors: [{ message: "hasUniqueValue: too many unique properties", in: "body", context: { propertyName: [`inputs.${inputs.indexOf(uniques[0]!)}.hasUniqueValue`] } }] });
  }
  for (const [i, input] of inputs.entries()) if (input.hasUniqueValue) await checkUniqueShape(db, portalId, type, input, `inputs.${i}.`);
  const statements = inputs.map((input) => db.insert(crmProperties).values(propertyRow(portalId, type, input, now)).returning());
  try {
    const results = await db.batch(statements as [(typeof statements)[0], ...(typeof statements)[0][]]);
    return results.map((rows) => fromRow(rows[0]!));
  } catch (err) {
    if (err instanceof Error && /UNIQUE constraint failed/i.test(err.message + String((err as { cause?: unknown }).cause ?? ""))) {
      throw conflict(`A property of this batch was created meanwhile on ${type}; nothing was created`);
    }
    throw err;
  }
}

/** The checks of one unique property of a batch (the count is checked for the batch as a whole). */
async function checkUniqueShape(db: Db, portalId: number, type: ObjectType, input: PropertyInput, at: string): Promise<void> {
  if (input.type !== "string" && input.type !== "number") {
    const message = `A unique property must be of type string or number, not ${input.type}`;
    throw badRequest(message, { errors: [{ message: `hasUniqueValue: ${message}`, in: "body", context: { propertyName: [`${at}hasUniqueValue`] } }] });
  }
  await requireNoDuplicates(db, portalId, type, input.name, at);
}

/** The names of `names` that are custom properties of the type, read in one query (`batch/read`, `batch/archive`). */
export async function customDefinitions(db: Db, portalId: number, type: ObjectType, names: string[]): Promise<Map<string, PropertyDef>> {
  const defs = await definitionsOf(db, portalId, type, names);
  return new Map([...defs].filter(([, d]) => !d.hubspotDefined));
}

/**
 * Archives up to 100 custom properties in one statement (`batch/archive`): built-in names are refused (400)
 * before anything is deleted; names of no property are ignored, as the record batch archive ignores ids.
 */
export async function archiveProperties(db: Db, portalId: number, type: ObjectType, names: string[]): Promise<void> {
  const builtIn = names.findIndex((n) => isBuiltIn(type, n));
  if (builtIn >= 0) {
    throw badRequest(`Property ${names[builtIn]} of ${type} is built in and cannot be archived`, { errors: [{ message: "built-in property", in: "body", context: { propertyName: [`inputs.${builtIn}.name`] } }] });
  }
  await db
    .delete(crmProperties)
    .where(and(eq(crmProperties.portalId, portalId), eq(crmProperties.objectType, type), sql`${crmProperties.name} in (select value from json_each(${JSON.stringify(names)}))`))
    .run();
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
