/**
 * @module Associations v4 (`/crm/v4/objects/{from}/{id}/associations/...` and `/crm/v4/associations/{from}/{to}/batch/...`,
 * docs/reference/crm.md "Associations v4"): the rows v3 writes (`crm_associations`, both directions; the
 * pair's unlabelled default) and the labels a pair holds (`crm_association_types`, both directions). Every
 * operation takes its pairs as one JSON parameter, so a batch of any size is a fixed number of statements
 * in one D1 batch (never more than a handful of bound parameters).
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawStatement, runRawBatch } from "../../db/d1-raw";
import { isCustomType, type ObjectType } from "../../db/tables/crm";
import { customDefault, primaryTypeId } from "./association-types";
import { associationEventStatements, type EventPair } from "../webhooks/association-events";
import type { OutboxSource } from "../webhooks/events";
import { badRequest, notFound } from "../../lib/errors";
import { categoryOf, definitionsStatement, listTypes, pairTypes, type Category } from "./association-definitions";
import { checkLimits, type TypedPair } from "./association-limits";

export type End = { type: ObjectType; id: number };
export interface Pair {
  fromId: number;
  toId: number;
}
export type { TypedPair };

const typeError = (message: string, at: string) => badRequest(message, { errors: [{ message, in: "body", context: { propertyName: [at] } }] });

/**
 * The types `specs` name, checked against the pair's types: a HUBSPOT_DEFINED id must be one of the pair's
 * built-in ones, a USER_DEFINED id one of the account's labels of this direction (another account's label
 * is as unknown as a made-up id). Any other is a 400 naming it at `${at}.${i}.associationTypeId`.
 */
export async function resolveTypes(db: Db, portalId: number, from: ObjectType, to: ObjectType, specs: { category: Category; typeId: number; at: string }[]) {
  const known = new Map((await listTypes(db, portalId, from, to)).map((t) => [t.typeId, t]));
  return specs.map((spec) => {
    const type = known.get(spec.typeId);
    if (!type || type.category !== spec.category) {
      throw typeError(`associationTypeId ${spec.typeId} is not a ${spec.category} type from ${from} to ${to}`, spec.at);
    }
    return type;
  });
}


/** `ids` that are not live records of `type` in the account (one query). */
async function missingRecords(db: Db, portalId: number, type: ObjectType, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const rows = await db.$client
    .prepare(`select id from crm_objects where portal_id = ? and object_type = ? and archived = 0 and id in (select value from json_each(?))`)
    .bind(portalId, type, JSON.stringify(unique))
    .raw<[number]>();
  const live = new Set(rows.map((r) => r[0]));
  return unique.filter((id) => !live.has(id));
}

/** Both ends of every pair must be live records of the account: otherwise a 404 naming the first missing one. */
export async function requireRecords(db: Db, portalId: number, from: ObjectType, to: ObjectType, pairs: Pair[]) {
  const [a, b] = await Promise.all([missingRecords(db, portalId, from, pairs.map((p) => p.fromId)), missingRecords(db, portalId, to, pairs.map((p) => p.toId))]);
  if (a.length) throw notFound(`${from} ${a[0]} not found`);
  if (b.length) throw notFound(`${to} ${b[0]} not found`);
}

/**
 * Associates two records with the pair's default type (v3 PUT, v4 default, engagements): both must be live
 * records of the account (another account's id is a 404, nothing written); idempotent.
 */
export async function associateRecords(db: Db, portalId: number, a: End, b: End, outbox?: OutboxSource) {
  // A custom object type is associated only with the types its schema's definitions name (the real service's rule).
  if ((isCustomType(a.type) || isCustomType(b.type)) && customDefault(a.type, b.type) === null) {
    throw badRequest(`No association type exists from ${a.type} to ${b.type}: define one on the schema first`, {
      errors: [{ message: "no association type", in: "path", context: { propertyName: ["toObjectType"] } }],
    });
  }
  await requireRecords(db, portalId, a.type, b.type, [{ fromId: a.id, toId: b.id }]);
  await writeAssociations(db, portalId, a.type, b.type, [{ fromId: a.id, toId: b.id, types: [] }], outbox);
}

/** Removes both directions of an association and its labels; both ends must be live records of the account. */
export async function dissociateRecords(db: Db, portalId: number, a: End, b: End, outbox?: OutboxSource) {
  await requireRecords(db, portalId, a.type, b.type, [{ fromId: a.id, toId: b.id }]);
  await removeAssociations(db, portalId, a.type, b.type, [{ fromId: a.id, toId: b.id }], outbox);
}

/** One direction's rows of every pair (`f` from, `t` to, `y` type id) for the json_each writes. */
const rowsOf = (pairs: TypedPair[]) => ({
  forward: pairs.flatMap((p) => p.types.filter((t) => t.label !== null).map((t) => ({ f: p.fromId, t: p.toId, y: t.typeId }))),
  back: pairs.flatMap((p) => p.types.filter((t) => t.label !== null && t.inverseTypeId !== null).map((t) => ({ f: p.toId, t: p.fromId, y: t.inverseTypeId }))),
});

/**
 * Associates every pair with its default type and its labelled types, both directions, in one batch
 * (idempotent). Records must have been checked (requireRecords); the account's limits are enforced first.
 * The pairs not associated before emit their `associationChange` events in the same batch (a label added to
 * an existing association emits none: the association itself did not change).
 */
export async function writeAssociations(db: Db, portalId: number, from: ObjectType, to: ObjectType, pairs: TypedPair[], outbox?: OutboxSource) {
  await checkLimits(db, portalId, from, to, pairs);
  const primary = primaryIds(from, to);
  const events = await associationEventStatements(db, outbox, portalId, from, to, pairs.map((p): EventPair => ({ f: p.fromId, t: p.toId, p: primary[0] !== null && p.types.some((t) => t.typeId === primary[0]) })), false, primary);
  const links = JSON.stringify(pairs.map((p) => ({ f: p.fromId, t: p.toId })));
  const { forward, back } = rowsOf(pairs);
  const statements = [
    sql`insert or ignore into crm_associations (portal_id, from_id, to_type, to_id)
      select ${portalId}, value ->> 'f', ${to}, value ->> 't' from json_each(${links})`,
    sql`insert or ignore into crm_associations (portal_id, from_id, to_type, to_id)
      select ${portalId}, value ->> 't', ${from}, value ->> 'f' from json_each(${links})`,
  ];
  if (forward.length) {
    statements.push(sql`insert or ignore into crm_association_types (portal_id, from_id, to_type, to_id, type_id)
      select ${portalId}, value ->> 'f', ${to}, value ->> 't', value ->> 'y' from json_each(${JSON.stringify(forward)})`);
  }
  if (back.length) {
    statements.push(sql`insert or ignore into crm_association_types (portal_id, from_id, to_type, to_id, type_id)
      select ${portalId}, value ->> 'f', ${from}, value ->> 't', value ->> 'y' from json_each(${JSON.stringify(back)})`);
  }
  // The events first: they read which pairs the inserts below add.
  await runRawBatch(db, [...events, ...statements.map((q) => rawStatement(db, q))]);
}

/** The pair's built-in "Primary" type ids, both directions (contact → company 1, company → contact 2); null where none. */
const primaryIds = (from: ObjectType, to: ObjectType): [number | null, number | null] => [primaryTypeId(from, to), primaryTypeId(to, from)];

/** Removes every pair's association, both directions (their labels go with them: a trigger of crm_associations). */
export async function removeAssociations(db: Db, portalId: number, from: ObjectType, to: ObjectType, pairs: Pair[], outbox?: OutboxSource) {
  const links = JSON.stringify(pairs.map((p) => ({ f: p.fromId, t: p.toId })));
  // The events first: they read which pairs are associated (and primary) before the deletes.
  const events = await associationEventStatements(db, outbox, portalId, from, to, pairs.map((p) => ({ f: p.fromId, t: p.toId })), true, primaryIds(from, to));
  await runRawBatch(db, [
    ...events,
    rawStatement(db, sql`delete from crm_associations where portal_id = ${portalId} and to_type = ${to}
      and (from_id, to_id) in (select value ->> 'f', value ->> 't' from json_each(${links}))`),
    rawStatement(db, sql`delete from crm_associations where portal_id = ${portalId} and to_type = ${from}
      and (from_id, to_id) in (select value ->> 't', value ->> 'f' from json_each(${links}))`),
  ]);
}

/**
 * Takes labelled types off pairs, both directions, leaving their default associations; naming the default
 * type removes the association itself (a pair cannot hold labels without it).
 */
export async function removeTypes(db: Db, portalId: number, from: ObjectType, to: ObjectType, pairs: TypedPair[], outbox?: OutboxSource) {
  const whole = pairs.filter((p) => p.types.some((t) => t.label === null));
  const { forward, back } = rowsOf(pairs);
  const statements = [];
  for (const [rows, type] of [[forward, to], [back, from]] as const) {
    if (!rows.length) continue;
    statements.push(rawStatement(db, sql`delete from crm_association_types where portal_id = ${portalId} and to_type = ${type}
      and (from_id, to_id, type_id) in (select value ->> 'f', value ->> 't', value ->> 'y' from json_each(${JSON.stringify(rows)}))`));
  }
  if (statements.length) await runRawBatch(db, statements);
  if (whole.length) await removeAssociations(db, portalId, from, to, whole, outbox);
}

/** One record's associations as the v4 reads answer them: the associated id and every type it holds. */
export interface Associated {
  toObjectId: number;
  associationTypes: { category: Category; typeId: number; label: string | null }[];
}
export interface FromResult {
  id: number;
  /** False when `id` is not a live record of the from type in the account. */
  found: boolean;
  to: Associated[];
  /** The last id answered, when more follow it. */
  next?: number;
}

/** Which of the named records (`?3`, a JSON list of `{ id }`) are live records of the type `?2` in the account `?1`. */
const LIVE_RECORDS = `select id from crm_objects where portal_id = ?1 and object_type = ?2 and archived = 0
  and id in (select value ->> 'id' from json_each(?3))`;

/** The labels a link holds (type ids, comma-separated; null when none): a probe of crm_association_types' key. */
const LINK_LABELS = `(select group_concat(t.type_id) from crm_association_types t
    where t.portal_id = a.portal_id and t.from_id = a.from_id and t.to_type = a.to_type and t.to_id = a.to_id)`;

/**
 * The links of the named records (`?1`, a JSON list of `{ id, after }`) to live records of `?3`, at most `?4`
 * per record after its cursor, with their labels. The ids' list is the outer loop (CROSS JOIN fixes SQLite's
 * join order): left to the planner, it walked every association of the account once per id (32,201 rows read
 * for 100 records with 300 associations; 2,101 this way). The per-record window and the sort cost about four
 * more rows read per link than the links themselves.
 */
const LINKS_OF_MANY = `select from_id, to_id, types from (
    select a.from_id, a.to_id, ${LINK_LABELS} as types,
      row_number() over (partition by a.from_id order by a.to_id) as n
    from json_each(?1) j
    cross join crm_associations a on a.portal_id = ?2 and a.from_id = j.value ->> 'id' and a.to_type = ?3 and a.to_id > j.value ->> 'after'
    join crm_objects o on o.id = a.to_id and o.archived = 0)
  where n <= ?4 order by from_id, to_id`;

/** One record (`?1`, in the account `?2`, of the type `?3`) if it is live. */
const LIVE_RECORD = `select id from crm_objects where id = ?1 and portal_id = ?2 and object_type = ?3 and archived = 0`;

/**
 * One record's links (the v4 page): its association rows in key order from the cursor, so SQLite walks the
 * primary key and stops after `?5` rows, with no window and no sort: two rows read per link (the link and its
 * target's liveness), and the label probe reads nothing for an unlabelled link. The many-record form read
 * six per link (308 rows for a page of 50).
 */
const LINKS_OF_ONE = `select a.from_id, a.to_id, ${LINK_LABELS} as types
  from crm_associations a join crm_objects o on o.id = a.to_id and o.archived = 0
  where a.portal_id = ?1 and a.from_id = ?2 and a.to_type = ?3 and a.to_id > ?4
  order by a.to_id limit ?5`;

/**
 * The associations of up to 1000 records to live records of `to`, each after its own cursor and at most
 * `limit` of them, with their types: ONE D1 batch (one round trip) of three statements (the named records'
 * liveness, their links, the account's labels of the pair), whatever the count of records, each with the ids
 * in one JSON parameter. The statements are constant text with bound values (no SQL built per request).
 */
export async function readAssociations(db: Db, portalId: number, from: ObjectType, to: ObjectType, named: { id: number; after: number }[], limit: number): Promise<FromResult[]> {
  // A record named twice is answered once, after its first cursor, as the batch object reads answer a
  // repeated id once; joining the list twice would double every association.
  const seen = new Set<number>();
  const inputs = named.filter((i) => !seen.has(i.id) && seen.add(i.id));
  const d1 = db.$client;
  const one = inputs.length === 1 ? inputs[0]! : undefined;
  const ids = one ? "" : JSON.stringify(inputs.map((i) => ({ id: i.id, after: i.after })));
  const results = await d1.batch([
    one ? d1.prepare(LIVE_RECORD).bind(one.id, portalId, from) : d1.prepare(LIVE_RECORDS).bind(portalId, from, ids),
    one ? d1.prepare(LINKS_OF_ONE).bind(portalId, one.id, to, one.after, limit + 1) : d1.prepare(LINKS_OF_MANY).bind(ids, portalId, to, limit + 1),
    definitionsStatement(db, portalId, from, to),
  ]);
  const [records, links, definitions] = results.map((r) => r.results as Record<string, unknown>[]) as [Record<string, unknown>[], Record<string, unknown>[], Record<string, unknown>[]];
  const types = new Map(pairTypes(from, to, (definitions as Record<string, unknown>[]).map((r) => Object.values(r))).map((t) => [t.typeId, t]));
  const shown = ({ category, typeId, label }: { category: Category; typeId: number; label: string | null }) => ({ category, typeId, label });
  const unlabelled = [...types.values()].filter((t) => t.label === null).map(shown);
  const live = new Set((records as { id: number }[]).map((r) => r.id));
  const byFrom = new Map<number, Associated[]>();
  for (const row of links as unknown as { from_id: number; to_id: number; types: string | null }[]) {
    const held = row.types ? row.types.split(",").map(Number).sort((a, b) => a - b) : [];
    const list = byFrom.get(row.from_id) ?? [];
    list.push({
      toObjectId: row.to_id,
      // A link without labels holds only the pair's unlabelled types: one list shared by every such link (read, never changed).
      associationTypes: held.length ? [...unlabelled, ...held.map((id) => shown(types.get(id) ?? { category: categoryOf(id), typeId: id, label: null }))] : unlabelled,
    });
    byFrom.set(row.from_id, list);
  }
  return inputs.map(({ id }) => {
    const all = byFrom.get(id) ?? [];
    const page = all.slice(0, limit);
    return { id, found: live.has(id), to: page, ...(all.length > limit ? { next: page.at(-1)!.toObjectId } : {}) };
  });
}

/** The pair's type a v3 `type` name (`contact_to_company`) or HUBSPOT_DEFINED id names; null when none. */
export const v3TypeName = (from: ObjectType, to: ObjectType) => `${singular(from)}_to_${singular(to)}`;
const singular = (type: ObjectType) => (type === "companies" ? "company" : type.replace(/s$/, ""));
