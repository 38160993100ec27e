/**
 * @module Unique custom properties (`hasUniqueValue: true`): a value is held by at most one live record of the
 * type. Every v3 record write (create, update, batch create/update/upsert) is checked here before anything is
 * written, so the refusal names the property and the record that holds the value; the triggers of
 * migrations/0030_unique_properties.sql refuse the write inside its own transaction when a concurrent write
 * took the value between the check and the write (answered by the router as the same 400, without the id).
 *
 * The real service refuses a duplicate value of a unique property; its exact answer is not recorded, so this
 * one is a 400 VALIDATION_ERROR naming the property, the value and the holder (docs/reference/crm.md
 * "Unique properties"). Values compare exactly, as stored strings; an empty string clears and never collides.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmProperties, type ObjectType } from "../../db/tables/crm";
import { badRequest, type ErrorDetail } from "../../lib/errors";

/** The names of the type's unique custom properties (one probe of crm_properties_unique). */
export async function uniquePropertiesOf(db: Db, portalId: number, type: ObjectType): Promise<string[]> {
  const rows = await db
    .select({ name: crmProperties.name })
    .from(crmProperties)
    .where(and(eq(crmProperties.portalId, portalId), eq(crmProperties.objectType, type), sql`${crmProperties.hasUniqueValue} = 1`))
    .all();
  return rows.map((r) => r.name);
}

/** A property's path in a record's JSON; names are `[a-z][a-z0-9_]*` (src/schemas/crm/properties.ts). */
export const jsonPath = (name: string) => `$.${name}`;

/** The live records of the type holding `values` in property `name`: value → record id (one query). */
export async function holdersOf(db: Db, portalId: number, type: ObjectType, name: string, values: string[]): Promise<Map<string, number>> {
  if (values.length === 0) return new Map();
  const rows = await db.all<{ id: number; v: string }>(sql`select id, json_extract(properties, ${jsonPath(name)}) as v from crm_objects
    where portal_id = ${portalId} and object_type = ${type} and archived = 0
    and json_extract(properties, ${jsonPath(name)}) in (select value from json_each(${JSON.stringify(values)}))`);
  return new Map(rows.map((r) => [String(r.v), r.id]));
}

/** One write as the check sees it: which record it is (an id, a key the record holds, or a new one). */
export interface UniqueWrite {
  properties: Record<string, string>;
  at: string;
  /** The record written, when known; a holder with this id is the record itself. */
  id?: number;
  /** The record is the one holding `value` in `name` (an update or upsert by a unique idProperty). */
  key?: { name: string; value: string };
  /** A new record (with `key`: when no record holds the key, as an upsert creates one). */
  create?: boolean;
}

/** The ids of the records the writes' keys name (one query per key property); a contact's email by its column. */
async function keyHolders(db: Db, portalId: number, type: ObjectType, writes: UniqueWrite[]): Promise<(number | undefined)[]> {
  const byName = new Map<string, Map<string, number>>();
  for (const name of new Set(writes.flatMap((w) => (w.key ? [w.key.name] : [])))) {
    const values = writes.flatMap((w) => (w.key?.name === name ? [w.key.value] : []));
    if (name === "email" && type === "contacts") {
      const list = JSON.stringify(values.map((v) => v.trim().toLowerCase()));
      const rows = await db.all<{ id: number; email: string }>(sql`select id, email from crm_objects where portal_id = ${portalId} and object_type = 'contacts' and archived = 0
        and email is not null and email in (select value from json_each(${list}))`);
      byName.set(name, new Map(rows.map((r) => [r.email, r.id])));
    } else byName.set(name, await holdersOf(db, portalId, type, name, values));
  }
  return writes.map((w) => {
    if (w.id !== undefined || !w.key) return w.id;
    const value = w.key.name === "email" && type === "contacts" ? w.key.value.trim().toLowerCase() : w.key.value;
    return byName.get(w.key.name)?.get(value);
  });
}

/**
 * The errors of the writes that would give a unique property a value another record holds, or give two
 * records of the batch the same value. Writes that are neither new nor name a live record are not checked
 * here (the triggers still refuse a duplicate). No unique property on the type: one indexed probe, no more.
 */
export async function uniqueValueErrors(db: Db, portalId: number, type: ObjectType, writes: UniqueWrite[]): Promise<ErrorDetail[]> {
  if (!writes.some((w) => w.create || w.id !== undefined || w.key)) return [];
  const names = await uniquePropertiesOf(db, portalId, type);
  if (names.length === 0) return [];
  const selves = await keyHolders(db, portalId, type, writes);
  const checked = writes.flatMap((w, i) => (w.create || selves[i] !== undefined ? [{ w, self: selves[i] }] : []));
  const errors: ErrorDetail[] = [];
  for (const name of names) {
    const first = new Map<string, UniqueWrite>();
    const valued = checked.filter(({ w }) => w.properties[name]);
    for (const { w } of valued) {
      const value = w.properties[name]!;
      const before = first.get(value);
      if (before) {
        const message = `${name} must be unique: ${w.at}properties.${name} gives ${JSON.stringify(value)} as ${before.at}properties.${name} does`;
        errors.push({ message, code: "UNIQUE_VALUE", in: "body", context: { propertyName: [`${w.at}properties.${name}`] } });
      } else first.set(value, w);
    }
    const holders = await holdersOf(db, portalId, type, name, [...first.keys()]);
    for (const { w, self } of valued) {
      const value = w.properties[name]!;
      const holder = holders.get(value);
      if (holder === undefined || holder === self || first.get(value) !== w) continue;
      errors.push({
        message: `${name} must be unique: ${JSON.stringify(value)} is already the ${name} of ${type} ${holder}`,
        code: "UNIQUE_VALUE",
        in: "body",
        context: { propertyName: [`${w.at}properties.${name}`], existingId: [String(holder)] },
      });
    }
  }
  return errors;
}

/** Throws the 400 of the errors, its message the first one's (it names the property and the holder). */
export function throwUniqueErrors(errors: ErrorDetail[]): void {
  if (errors.length === 0) return;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  throw badRequest(`${errors[0]!.message}${more}`, { errors });
}

/**
 * Before a property becomes unique: live records of the type must not already share a value of it (one
 * grouping query); the first shared value is a 400 naming it.
 */
export async function requireNoDuplicates(db: Db, portalId: number, type: ObjectType, name: string, at: string): Promise<void> {
  const row = await db.get<{ v: string; n: number }>(sql`select json_extract(properties, ${jsonPath(name)}) as v, count(*) as n from crm_objects
    where portal_id = ${portalId} and object_type = ${type} and archived = 0 and json_extract(properties, ${jsonPath(name)}) is not null
    group by v having n > 1 limit 1`);
  if (row) {
    throw badRequest(`${name} cannot be unique: ${row.n} ${type} records already hold ${JSON.stringify(String(row.v))}`, {
      errors: [{ message: `hasUniqueValue: ${row.n} records share a value of ${name}`, in: "body", context: { propertyName: [`${at}hasUniqueValue`] } }],
    });
  }
}

/** The abort the triggers raise; the router answers it as a 400 (the holder is not known there). */
export const UNIQUE_ABORT = "UNIQUE_PROPERTY_VALUE";
export const isUniqueAbort = (err: unknown) => err instanceof Error && (err.message + String((err as { cause?: unknown }).cause ?? "")).includes(UNIQUE_ABORT);
