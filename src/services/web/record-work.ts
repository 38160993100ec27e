/**
 * @module What the record page's forms need besides the record itself (docs/reference/web.md, "Working on
 * a record"): the labels each association holds, the labels a pair offers, the account's owners for a
 * task, and the activity a form names, checked to be the account's and associated with the record.
 */
import type { Db } from "../../db/client";
import { ACTIVITY_TYPES, type ActivityType, type ObjectType } from "../../db/tables/crm";
import { builtInTypes, listTypes, USER_TYPE_BASE } from "../crm/association-definitions";
import { pairDefault } from "../crm/association-types";
import { ownerOptions } from "../owners/owners";
import type { PropertyDef } from "../crm/properties";
import { crmRowFromArray, crmColumns, type CrmRow } from "../crm/records";
import { PAGE_TYPES, type PageType } from "./records";

/** Labels per associated record are read for at most this many links of a record (one statement). */
const LABELLED_SHOWN = 500;

/**
 * The labels the record's links hold, by `toType:toId`: the account's labels by their text, the built-in
 * "Primary" by its name. One statement over the record's rows of crm_association_types (its key's prefix).
 */
const HELD = `select t.to_type, t.to_id, t.type_id, d.label from crm_association_types t
  left join association_definitions d on d.portal_id = t.portal_id and d.type_id = t.type_id
  where t.portal_id = ?1 and t.from_id = ?2 order by t.to_type, t.to_id, t.type_id limit ?3`;

export async function heldLabels(db: Db, portalId: number, type: ObjectType, id: number): Promise<Map<string, string[]>> {
  const rows = await db.$client.prepare(HELD).bind(portalId, id, LABELLED_SHOWN).raw<[ObjectType, number, number, string | null]>();
  const out = new Map<string, string[]>();
  for (const [toType, toId, typeId, label] of rows) {
    // A built-in labelled type ("Primary") has no definition row: its name comes from code.
    const text = label ?? (typeId < USER_TYPE_BASE ? builtInTypes(type, toType).find((t) => t.typeId === typeId)?.label : null);
    if (!text) continue;
    const key = `${toType}:${toId}`;
    out.set(key, [...(out.get(key) ?? []), text]);
  }
  return out;
}

/** The page types a record of `type` can be associated with (a pair with a default type). */
export const associableTypes = (type: ObjectType): PageType[] => PAGE_TYPES.filter((t) => pairDefault(type, t) !== null);

/** The labels a pair offers besides the unlabelled default: "Primary" where it exists, then the account's labels. */
export async function labelChoices(db: Db, portalId: number, from: ObjectType, to: ObjectType) {
  return (await listTypes(db, portalId, from, to)).filter((t) => t.label !== null).map((t) => ({ typeId: t.typeId, label: t.label! }));
}

export interface OwnerChoice {
  value: string;
  label: string;
  email: string;
}

/** The account's live owners for a task's owner (at most OWNER_OPTIONS_MAX, as the properties API lists them). */
export async function ownerChoices(control: Db, portalId: number): Promise<OwnerChoice[]> {
  return (await ownerOptions(control, portalId)).map((o) => ({ value: o.value, label: o.label, email: o.description }));
}

/**
 * The live activity `activityId` of the account if it is associated with the record `recordId`; null otherwise
 * (another account's activity, another record's, an archived one, or no activity at all: the same answer).
 */
const ACTIVITY_OF_RECORD = `select ${crmColumns("c")} from crm_associations a join crm_objects c on c.id = a.to_id
  where a.portal_id = ?1 and a.from_id = ?2 and a.to_id = ?3 and a.to_type in (select value from json_each(?4))
    and c.portal_id = ?1 and c.archived = 0`;

export async function activityOfRecord(db: Db, portalId: number, recordId: number, activityId: number): Promise<(CrmRow & { objectType: ActivityType }) | null> {
  const [row] = await db.$client.prepare(ACTIVITY_OF_RECORD).bind(portalId, recordId, activityId, JSON.stringify(ACTIVITY_TYPES)).raw();
  return row ? (crmRowFromArray(row) as CrmRow & { objectType: ActivityType }) : null;
}

/**
 * The owners a task may name, from the definitions the record page read anyway: `hubspot_owner_id`'s live
 * options are the account's owners (the same read as `ownerChoices`), so the page reads them once.
 */
export function ownerChoicesOf(defs: PropertyDef[]): OwnerChoice[] | null {
  const owner = defs.find((d) => d.name === "hubspot_owner_id");
  return owner ? owner.options.map((o) => ({ value: o.value, label: o.label, email: o.description })) : null;
}

/**
 * The record page's forms' data, in one go: the labels its associations hold and the account's owners
 * (`owners` when the page has them already, else read here).
 */
export async function recordWork(db: Db, control: Db, user: { portalId: number; csrfToken: string; email: string }, type: PageType, id: number, known?: Promise<OwnerChoice[] | null>) {
  const [labels, owners] = await Promise.all([
    heldLabels(db, user.portalId, type, id),
    (known ?? Promise.resolve(null)).then((o) => o ?? ownerChoices(control, user.portalId)),
  ]);
  const path = `/app/${type}/${id}`;
  return {
    associations: { path, csrf: user.csrfToken, labels, associable: associableTypes(type) },
    activities: { path, csrf: user.csrfToken, owners, email: user.email },
  };
}

/** Which of `ids` (records of `toType`) the record `fromId` is associated with already (one statement). */
export async function associatedAmong(db: Db, portalId: number, fromId: number, toType: ObjectType, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.$client
    .prepare(`select to_id from crm_associations where portal_id = ?1 and from_id = ?2 and to_type = ?3 and to_id in (select value from json_each(?4))`)
    .bind(portalId, fromId, toType, JSON.stringify(ids))
    .raw<[number]>();
  return new Set(rows.map((r) => r[0]));
}
