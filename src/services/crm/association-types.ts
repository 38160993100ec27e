/**
 * @module The v3 HUBSPOT_DEFINED association type ids for the pairs this service stores, as
 * `POST /crm/v3/objects/{type}` receives them in `associations[].types[]` from @hubspot/api-client. Each id
 * names one direction of one pair, so it also says which type the `to.id` is. Checked against the real
 * API's association type table (v4 "association type IDs"; the v1 overview's 15 = contact → ticket and
 * 26 = ticket → company agree). Mind the direction of the primary ids: 5 is deal → company and 6 company →
 * deal; 25 is company → ticket and 26 ticket → company.
 */
import type { ObjectType } from "../../db/tables/crm";

/** [from, to, unlabeled id, primary id or null]. */
const PAIRS: [ObjectType, ObjectType, number, number | null][] = [
  ["contacts", "companies", 279, 1],
  ["companies", "contacts", 280, 2],
  ["deals", "contacts", 3, null],
  ["contacts", "deals", 4, null],
  ["deals", "companies", 341, 5],
  ["companies", "deals", 342, 6],
  ["deals", "line_items", 19, null],
  ["line_items", "deals", 20, null],
  ["contacts", "tickets", 15, null],
  ["tickets", "contacts", 16, null],
  ["tickets", "companies", 339, 26],
  ["companies", "tickets", 340, 25],
  ["deals", "tickets", 27, null],
  ["tickets", "deals", 28, null],
];

const BY_ID = new Map<number, { from: ObjectType; to: ObjectType }>(
  PAIRS.flatMap(([from, to, id, primary]) => [[id, { from, to }] as const, ...(primary === null ? [] : [[primary, { from, to }] as const])]),
);

/** The type a HUBSPOT_DEFINED association type id points to from `from`; null when it is not one of `from`'s. */
export function associationTarget(from: ObjectType, typeId: number): ObjectType | null {
  const pair = BY_ID.get(typeId);
  return pair && pair.from === from ? pair.to : null;
}

/** The unlabeled HUBSPOT_DEFINED type id of a pair (v4 default associations and pages); null when none exists. */
export function defaultTypeId(from: ObjectType, to: ObjectType): number | null {
  return PAIRS.find(([f, t]) => f === from && t === to)?.[2] ?? null;
}
