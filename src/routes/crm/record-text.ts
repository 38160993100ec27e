/**
 * @module A v3 record as JSON text (the list's and the search's results): the page is assembled as text
 * around the properties D1 built (services/crm/projection.ts), so 100 records are not parsed from D1's
 * JSON only to be serialised again.
 */
import type { ObjectType } from "../../db/tables/crm";
import { isoTime } from "../../lib/iso";
import { systemPropertyValue } from "../../services/crm/properties";
import type { ProjectedRecord } from "../../services/crm/projection";
import { isColumnProperty } from "../../services/crm/search";

/**
 * The answered names (answeredProperties) split as the reads need them: the column-backed ones, written
 * from the record's columns, and the stored ones, which D1 picks (projection.ts).
 */
export const splitAnswered = (names: string[]) => ({ system: names.filter(isColumnProperty), stored: names.filter((n) => !isColumnProperty(n)) });

/** A record's `associations` member: per associated type, its ids as `{ id, type: "<from>_to_<to>" }`. */
export function presentAssociations(from: ObjectType, associations: Partial<Record<ObjectType, number[]>>) {
  return Object.fromEntries(
    Object.entries(associations).map(([type, ids]) => [type, { results: (ids ?? []).map((id) => ({ id: String(id), type: `${from}_to_${type}` })) }]),
  );
}

/**
 * The record in the v3 shape: the column-backed properties in `system`, then the asked stored ones, and
 * `associations` when the read asked for them.
 */
export function recordText(rec: ProjectedRecord, system: string[], associations?: { from: ObjectType; ids: Partial<Record<ObjectType, number[]>> }): string {
  const createdAt = isoTime(rec.createdAt);
  const updatedAt = isoTime(rec.updatedAt);
  let properties = "";
  for (const name of system) {
    const value = systemPropertyValue(name, rec.id, createdAt, updatedAt);
    properties += `${properties ? "," : ""}${JSON.stringify(name)}:"${value}"`;
  }
  if (rec.propertyMembers) properties += `${properties ? "," : ""}${rec.propertyMembers}`;
  const linked = associations ? `,"associations":${JSON.stringify(presentAssociations(associations.from, associations.ids))}` : "";
  // An archived record's updated_at is when it was archived (see present in routes/crm/objects.ts).
  const archived = rec.archived ? `true,"archivedAt":"${updatedAt}"` : "false";
  return `{"id":"${rec.id}","properties":{${properties}},"createdAt":"${createdAt}","updatedAt":"${updatedAt}","archived":${archived}${linked}}`;
}
