/**
 * @module Custom object schemas (docs/reference/schemas.md). A schema is one crm_schemas row; its properties
 * are the account's custom properties of its type `2-<id>` (crm_properties), written in the same batch; its
 * association definitions are kept on the row. Archiving hides the type (its records stop answering) and
 * keeps the name taken; a purge deletes an archived schema that has no records left.
 */
import { and, eq, inArray, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { crmObjects, crmProperties, isBuiltInType, isCustomType, type ObjectType } from "../../db/tables/crm";
import { crmSchemas, type SchemaAssociation } from "../../db/tables/schemas";
import { newId } from "../../db/id-ranges";
import { badRequest, notFound } from "../../lib/errors";
import { TYPE_IDS } from "../../schemas/crm/associations-v4";
import type * as s from "../../schemas/schemas";
import { customTypeKey } from "../crm/object-types";
import { fromRow, type PropertyDef } from "../crm/properties";

export type SchemaRow = typeof crmSchemas.$inferSelect;
export interface Schema {
  row: SchemaRow;
  properties: PropertyDef[];
}

/** The first id of the account's association definitions: above every HUBSPOT_DEFINED association type id. */
const FIRST_ASSOCIATION_ID = 1000;

/**
 * The next free definition id of the account (ids and inverse ids of every schema's definitions, archived
 * schemas' too): a definition takes it and the next one (its inverse), so a pair of two custom types never
 * sees one id in two definitions. Below the labels' ids (association-definitions.ts), which start above 1,000,000.
 */
async function nextAssociationId(db: Db, portalId: number): Promise<number> {
  const rows = await db.select({ associations: crmSchemas.associations }).from(crmSchemas).where(eq(crmSchemas.portalId, portalId));
  const used = rows.flatMap((r) => r.associations.flatMap((a) => [a.id, a.inverseId ?? a.id]));
  return Math.max(FIRST_ASSOCIATION_ID - 1, ...used) + 1;
}

const bad = (message: string, field: string) => badRequest(message, { errors: [{ message, in: "body", context: { propertyName: [field] } }] });

/** Which schema `raw` names: `2-<id>`, `p<portalId>_<name>` or the bare name. */
function nameCondition(portalId: number, raw: string): SQL {
  if (isCustomType(raw)) return eq(crmSchemas.id, Number(raw.slice(2)));
  const fqn = new RegExp(`^p${portalId}_(.+)$`).exec(raw);
  return eq(crmSchemas.name, fqn ? fqn[1]! : raw);
}

/** Schemas with their properties: two queries whatever their number. */
async function withProperties(db: Db, portalId: number, rows: SchemaRow[]): Promise<Schema[]> {
  if (rows.length === 0) return [];
  const keys = rows.map((r) => customTypeKey(r.id));
  const props = await db.select().from(crmProperties).where(and(eq(crmProperties.portalId, portalId), inArray(crmProperties.objectType, keys))).orderBy(crmProperties.name);
  return rows.map((row) => ({ row, properties: props.filter((p) => p.objectType === customTypeKey(row.id)).map(fromRow) }));
}

export async function listSchemas(db: Db, portalId: number, archived: boolean): Promise<Schema[]> {
  const rows = await db
    .select()
    .from(crmSchemas)
    .where(and(eq(crmSchemas.portalId, portalId), archived ? isNotNull(crmSchemas.archivedAt) : isNull(crmSchemas.archivedAt)))
    .orderBy(crmSchemas.id)
    .limit(1000);
  return withProperties(db, portalId, rows);
}

/** The live (or, with `archived`, the archived) schema `raw` names; 404 when the account has none. */
export async function getSchema(db: Db, portalId: number, raw: string, archived = false): Promise<Schema> {
  const [row] = await db
    .select()
    .from(crmSchemas)
    .where(and(eq(crmSchemas.portalId, portalId), nameCondition(portalId, raw), archived ? isNotNull(crmSchemas.archivedAt) : isNull(crmSchemas.archivedAt)))
    .limit(1);
  if (!row) throw notFound(`Unable to find object type ${raw}`);
  return (await withProperties(db, portalId, [row]))[0]!;
}

/** Reads the schemas `inputs` name, in one statement (ids and names each one `in` list under the account's filter). */
export async function batchReadSchemas(db: Db, portalId: number, inputs: string[]): Promise<Schema[]> {
  if (inputs.length === 0) return [];
  const ids = inputs.filter(isCustomType).map((t) => Number(t.slice(2)));
  const names = inputs.filter((t) => !isCustomType(t)).map((t) => new RegExp(`^p${portalId}_(.+)$`).exec(t)?.[1] ?? t);
  const named = or(ids.length ? inArray(crmSchemas.id, ids) : undefined, names.length ? inArray(crmSchemas.name, names) : undefined);
  const rows = await db
    .select()
    .from(crmSchemas)
    .where(and(eq(crmSchemas.portalId, portalId), isNull(crmSchemas.archivedAt), named))
    .orderBy(crmSchemas.id);
  return withProperties(db, portalId, rows);
}

/** Every name in `list` (the body field `field`) must be one of the schema's properties. */
function checkAmong(list: string[] | undefined, known: Set<string>, field: string) {
  for (const [i, name] of (list ?? []).entries()) {
    if (!known.has(name)) throw bad(`${field}: ${name} is not one of the schema's properties`, `${field}.${i}`);
  }
}

function checkDisplay(input: { primaryDisplayProperty?: string; secondaryDisplayProperties?: string[]; requiredProperties?: string[]; searchableProperties?: string[] }, known: Set<string>) {
  if (input.primaryDisplayProperty !== undefined && !known.has(input.primaryDisplayProperty)) {
    throw bad(`primaryDisplayProperty: ${input.primaryDisplayProperty} is not one of the schema's properties`, "primaryDisplayProperty");
  }
  checkAmong(input.secondaryDisplayProperties, known, "secondaryDisplayProperties");
  checkAmong(input.requiredProperties, known, "requiredProperties");
  checkAmong(input.searchableProperties, known, "searchableProperties");
}

/** The names the real service's schema examples give associated types (`"associatedObjects": ["CONTACT"]`). */
const OBJECT_NAMES: Record<string, keyof typeof TYPE_IDS> = { CONTACT: "contacts", COMPANY: "companies", DEAL: "deals", TICKET: "tickets", PRODUCT: "products", LINE_ITEM: "line_items" };

/**
 * The type an association definition points to, as its object type id: a built-in type by name, id or
 * upper-case singular name (`contacts`, `0-1`, `CONTACT`) or one of the account's live custom types by id.
 * Null when there is none.
 */
async function targetTypeId(db: Db, portalId: number, raw: string): Promise<string | null> {
  if (Object.hasOwn(OBJECT_NAMES, raw)) return TYPE_IDS[OBJECT_NAMES[raw]!];
  if (isBuiltInType(raw)) return TYPE_IDS[raw];
  if (Object.values(TYPE_IDS).includes(raw)) return raw;
  if (!isCustomType(raw)) return null;
  const [row] = await db.select({ id: crmSchemas.id }).from(crmSchemas).where(and(eq(crmSchemas.portalId, portalId), eq(crmSchemas.id, Number(raw.slice(2))), isNull(crmSchemas.archivedAt))).limit(1);
  return row ? raw : null;
}

const propertyValues = (portalId: number, objectType: ObjectType | SQL, p: z.output<typeof s.schemaPropertyInput>, group: string, now: number) => ({
  portalId,
  objectType: objectType as ObjectType,
  name: p.name,
  label: p.label,
  type: p.type,
  fieldType: p.fieldType,
  groupName: p.groupName ?? group,
  description: p.description ?? "",
  options: (p.options ?? []).map((o, i) => ({ label: o.label, value: o.value, description: o.description ?? "", displayOrder: o.displayOrder ?? i, hidden: o.hidden ?? false })),
  displayOrder: p.displayOrder ?? -1,
  hidden: p.hidden ?? false,
  formField: p.formField ?? false,
  hasUniqueValue: false,
  createdAt: now,
  updatedAt: now,
});

/** Creates a schema and its properties in one batch; 400 naming the field on any inconsistency. */
export async function createSchema(db: Db, portalId: number, input: z.output<typeof s.createSchemaBody>, now: number): Promise<Schema> {
  const known = new Set<string>();
  for (const [i, p] of input.properties.entries()) {
    if (known.has(p.name)) throw bad(`properties: ${p.name} is defined twice`, `properties.${i}.name`);
    known.add(p.name);
    if (p.type === "enumeration" && !(p.options?.length)) throw bad(`properties: ${p.name} is an enumeration and needs options`, `properties.${i}.options`);
    if (p.type !== "enumeration" && p.options?.length) throw bad(`properties: ${p.name} is a ${p.type} and takes no options`, `properties.${i}.options`);
  }
  checkDisplay(input, known);
  const targets: string[] = [];
  for (const [i, raw] of input.associatedObjects.entries()) {
    const id = await targetTypeId(db, portalId, raw);
    if (!id) throw bad(`associatedObjects: ${raw} is not an object type of this account`, `associatedObjects.${i}`);
    if (!targets.includes(id)) targets.push(id);
  }
  const [taken] = await db.select({ id: crmSchemas.id }).from(crmSchemas).where(and(eq(crmSchemas.portalId, portalId), eq(crmSchemas.name, input.name))).limit(1);
  if (taken) throw bad(`name: an object type named ${input.name} already exists in this account`, "name");
  const first = targets.length ? await nextAssociationId(db, portalId) : FIRST_ASSOCIATION_ID;
  const associations: SchemaAssociation[] = targets.map((toObjectTypeId, i) => ({ id: first + 2 * i, inverseId: first + 2 * i + 1, toObjectTypeId, name: null, createdAt: now, updatedAt: now }));
  // The properties take the new schema's key from the id counter its insert has just moved (id-range trigger).
  const newKey = sql`'2-' || (select seq from id_sequences where name = 'crm_schemas')`;
  const [inserted] = await db.batch([
    db
      .insert(crmSchemas)
      .values({
        id: newId("crm_schemas"),
        portalId,
        name: input.name,
        singular: input.labels.singular,
        plural: input.labels.plural,
        description: input.description ?? null,
        primaryDisplayProperty: input.primaryDisplayProperty ?? null,
        secondaryDisplayProperties: input.secondaryDisplayProperties ?? [],
        requiredProperties: input.requiredProperties,
        searchableProperties: input.searchableProperties ?? [],
        associations,
        createdAt: now,
        updatedAt: now,
      })
      .returning(),
    db.insert(crmProperties).values(input.properties.map((p) => propertyValues(portalId, newKey, p, `${input.name}_information`, now))),
  ]);
  return getSchema(db, portalId, customTypeKey(inserted[0]!.id));
}

export async function updateSchema(db: Db, portalId: number, raw: string, patch: z.output<typeof s.updateSchemaBody>, now: number): Promise<SchemaRow> {
  const { row, properties } = await getSchema(db, portalId, raw);
  checkDisplay(patch, new Set(properties.map((p) => p.name)));
  const [updated] = await db
    .update(crmSchemas)
    .set({
      singular: patch.labels?.singular,
      plural: patch.labels?.plural,
      description: patch.clearDescription ? null : patch.description,
      primaryDisplayProperty: patch.primaryDisplayProperty,
      secondaryDisplayProperties: patch.secondaryDisplayProperties,
      requiredProperties: patch.requiredProperties,
      searchableProperties: patch.searchableProperties,
      updatedAt: now,
    })
    .where(and(eq(crmSchemas.portalId, portalId), eq(crmSchemas.id, row.id)))
    .returning();
  return updated!;
}

export async function archiveSchema(db: Db, portalId: number, raw: string, now: number): Promise<void> {
  const { row } = await getSchema(db, portalId, raw);
  await db.update(crmSchemas).set({ archivedAt: now, updatedAt: now }).where(and(eq(crmSchemas.portalId, portalId), eq(crmSchemas.id, row.id)));
}

/** Deletes an archived schema and its property definitions; 400 while records of its type remain. */
export async function purgeSchema(db: Db, portalId: number, raw: string): Promise<void> {
  const { row } = await getSchema(db, portalId, raw, true);
  const key = customTypeKey(row.id);
  const [record] = await db.select({ id: crmObjects.id }).from(crmObjects).where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, key))).limit(1);
  if (record) throw badRequest(`Object type ${key} still has records; a schema is purged only once it has none`);
  await db.batch([
    db.delete(crmProperties).where(and(eq(crmProperties.portalId, portalId), eq(crmProperties.objectType, key))),
    db.delete(crmSchemas).where(and(eq(crmSchemas.portalId, portalId), eq(crmSchemas.id, row.id))),
  ]);
}

export async function createAssociation(db: Db, portalId: number, raw: string, input: z.output<typeof s.associationBody>, now: number): Promise<{ from: string; association: SchemaAssociation }> {
  const { row } = await getSchema(db, portalId, raw);
  const from = customTypeKey(row.id);
  if (input.fromObjectTypeId !== from && input.fromObjectTypeId !== row.name && input.fromObjectTypeId !== `p${portalId}_${row.name}`) {
    throw bad(`fromObjectTypeId: must be this schema's type ${from}`, "fromObjectTypeId");
  }
  const to = await targetTypeId(db, portalId, input.toObjectTypeId);
  if (!to) throw bad(`toObjectTypeId: ${input.toObjectTypeId} is not an object type of this account`, "toObjectTypeId");
  if (row.associations.some((a) => a.toObjectTypeId === to && a.name === (input.name ?? null))) {
    throw bad(`toObjectTypeId: ${from} already has an association definition to ${to}${input.name ? ` named ${input.name}` : ""}`, "toObjectTypeId");
  }
  const id = await nextAssociationId(db, portalId);
  const association: SchemaAssociation = { id, inverseId: id + 1, toObjectTypeId: to, name: input.name ?? null, createdAt: now, updatedAt: now };
  await db.update(crmSchemas).set({ associations: [...row.associations, association], updatedAt: now }).where(and(eq(crmSchemas.portalId, portalId), eq(crmSchemas.id, row.id)));
  return { from, association };
}

export async function deleteAssociation(db: Db, portalId: number, raw: string, id: number, now: number): Promise<void> {
  const { row } = await getSchema(db, portalId, raw);
  if (!row.associations.some((a) => a.id === id)) throw notFound(`Association definition ${id} not found on ${customTypeKey(row.id)}`);
  await db.update(crmSchemas).set({ associations: row.associations.filter((a) => a.id !== id), updatedAt: now }).where(and(eq(crmSchemas.portalId, portalId), eq(crmSchemas.id, row.id)));
}

