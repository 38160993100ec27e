/**
 * @module The v3 HUBSPOT_DEFINED association type ids for the pairs this service stores, as
 * `POST /crm/v3/objects/{type}` receives them in `associations[].types[]` from @hubspot/api-client. Each id
 * names one direction of one pair, so it also says which type the `to.id` is. Checked against the real
 * API's association type table (v4 "association type IDs"; the v1 overview's 15 = contact → ticket and
 * 26 = ticket → company agree). Mind the direction of the primary ids: 5 is deal → company and 6 company →
 * deal; 25 is company → ticket and 26 ticket → company.
 */
import { isCustomType, type BuiltInObjectType, type ObjectType } from "../../db/tables/crm";
import { typeIdOf } from "../../schemas/crm/associations-v4";
import { customTypeInfo } from "./object-types";

/** [from, to, unlabeled id, primary id or null]. */
// A function declaration (hoisted) builds the activity rows; PAIRS is read only after the module ran.
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
  // Activities to and from contacts, companies, deals and tickets.
  ...activityPairs("notes", { contacts: [202, 201], companies: [190, 189], deals: [214, 213], tickets: [228, 227] }),
  ...activityPairs("calls", { contacts: [194, 193], companies: [182, 181], deals: [206, 205], tickets: [220, 219] }),
  ...activityPairs("emails", { contacts: [198, 197], companies: [186, 185], deals: [210, 209], tickets: [224, 223] }),
  ...activityPairs("meetings", { contacts: [200, 199], companies: [188, 187], deals: [212, 211], tickets: [226, 225] }),
  ...activityPairs("tasks", { contacts: [204, 203], companies: [192, 191], deals: [216, 215], tickets: [230, 229] }),
  ...activityPairs("communications", { contacts: [82, 81], companies: [88, 87], deals: [86, 85], tickets: [84, 83] }),
  ...activityPairs("postal_mail", { contacts: [454, 453], companies: [456, 455], deals: [458, 457], tickets: [460, 459] }),
  // A lead's contact: 608 (578 names the primary one); its company 610.
  ["leads", "contacts", 608, 578],
  ["contacts", "leads", 607, null],
  ["leads", "companies", 610, null],
  ["companies", "leads", 609, null],
];

/** [activity → record, record → activity] ids of one activity type. */
function activityPairs(activity: ObjectType, ids: Partial<Record<BuiltInObjectType, [number, number]>>): [ObjectType, ObjectType, number, null][] {
  return Object.entries(ids).flatMap(([to, [out, back]]) => [
    [activity, to as ObjectType, out, null],
    [to as ObjectType, activity, back, null],
  ]);
}

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

/** The HUBSPOT_DEFINED "Primary" type id of a pair (contact → primary company is 1); null when it has none. */
export function primaryTypeId(from: ObjectType, to: ObjectType): number | null {
  return PAIRS.find(([f, t]) => f === from && t === to)?.[3] ?? null;
}

/**
 * The unlabelled type of a pair with a custom object type, from the schemas' association definitions (the
 * real service: a custom type is associated only through a definition, and its default association is
 * USER_DEFINED, with an id of the account's own for each direction). The from type's own definition to the
 * other type wins; otherwise the to type's definition read backwards. Null when neither schema defines the pair.
 * The schemas' definitions are the ones the request resolved (object-types.ts: every route naming a custom
 * type reads its schema first).
 */
export function customDefault(from: ObjectType, to: ObjectType): { typeId: number; inverseTypeId: number } | null {
  if (isCustomType(from)) {
    const own = customTypeInfo(from).associations.find((a) => a.toObjectTypeId === typeIdOf(to));
    if (own) return { typeId: own.id, inverseTypeId: own.inverseId ?? own.id };
  }
  if (isCustomType(to)) {
    const back = customTypeInfo(to).associations.find((a) => a.toObjectTypeId === typeIdOf(from));
    if (back) return { typeId: back.inverseId ?? back.id, inverseTypeId: back.id };
  }
  return null;
}

/** The unlabelled type of any pair: HUBSPOT_DEFINED for built-in pairs, USER_DEFINED for a custom type's; null when none. */
export function pairDefault(from: ObjectType, to: ObjectType): { category: "HUBSPOT_DEFINED" | "USER_DEFINED"; typeId: number; inverseTypeId: number | null } | null {
  const custom = customDefault(from, to);
  if (custom) return { category: "USER_DEFINED", ...custom };
  const typeId = defaultTypeId(from, to);
  return typeId === null ? null : { category: "HUBSPOT_DEFINED", typeId, inverseTypeId: defaultTypeId(to, from) };
}
