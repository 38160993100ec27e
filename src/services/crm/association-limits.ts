/**
 * @module Association limits (`/crm/v4/associations/definitions/configurations/...`, docs/reference/crm.md
 * "Association limits"): an account's cap on how many records of one type a record may be associated with,
 * per association type (the default type caps all of them; a label caps those holding it). Enforced on
 * every association write, in both directions.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawRows, rawStatement, runRawBatch } from "../../db/d1-raw";
import type { ObjectType } from "../../db/tables/crm";
import { badRequest } from "../../lib/errors";
import type { AssociationType } from "./association-definitions";
import { pairDefault } from "./association-types";

/** A pair about to be associated with these types (the pair's default type is implied). */
export interface TypedPair {
  fromId: number;
  toId: number;
  types: AssociationType[];
}

export interface Limit {
  fromType: string;
  toType: string;
  typeId: number;
  maxToObjectIds: number;
}

export async function listLimits(db: Db, portalId: number, pair?: { from: ObjectType; to: ObjectType }): Promise<Limit[]> {
  const where = pair ? sql` and from_type = ${pair.from} and to_type = ${pair.to}` : sql``;
  const rows = await rawRows<[string, string, number, number]>(
    db,
    sql`select from_type, to_type, type_id, max_to_object_ids from association_limits where portal_id = ${portalId}${where} order by from_type, to_type, type_id`,
  );
  return rows.map(([fromType, toType, typeId, maxToObjectIds]) => ({ fromType, toType, typeId: Number(typeId), maxToObjectIds: Number(maxToObjectIds) }));
}

/** Sets (inserts or replaces) limits of one pair's types, in one batch. The types were checked by the caller. */
export async function setLimits(db: Db, portalId: number, from: ObjectType, to: ObjectType, limits: { typeId: number; maxToObjectIds: number }[]) {
  await runRawBatch(
    db,
    limits.map((l) =>
      rawStatement(db, sql`insert or replace into association_limits (portal_id, from_type, to_type, type_id, max_to_object_ids) values (${portalId}, ${from}, ${to}, ${l.typeId}, ${l.maxToObjectIds})`),
    ),
  );
}

export async function removeLimits(db: Db, portalId: number, from: ObjectType, to: ObjectType, typeIds: number[]) {
  await runRawBatch(db, [
    rawStatement(db, sql`delete from association_limits where portal_id = ${portalId} and from_type = ${from} and to_type = ${to}
      and type_id in (select value from json_each(${JSON.stringify(typeIds)}))`),
  ]);
}

/**
 * Refuses (400, nothing written) a write that would take a record past one of the account's limits: for
 * every limit of either direction, the record's associations of that type after the write (those it has,
 * plus the new ones it does not have yet) must not exceed `maxToObjectIds`. One query when the account set
 * no limit on the pair, one more per limit otherwise.
 */
export async function checkLimits(db: Db, portalId: number, from: ObjectType, to: ObjectType, pairs: TypedPair[]) {
  const limits = await rawRows<[string, number, number]>(
    db,
    sql`select from_type, type_id, max_to_object_ids from association_limits where portal_id = ${portalId}
      and ((from_type = ${from} and to_type = ${to}) or (from_type = ${to} and to_type = ${from}))`,
  );
  for (const [side, typeIdRaw, maxRaw] of limits) {
    const typeId = Number(typeIdRaw);
    const max = Number(maxRaw);
    // The pairs seen from the limited side (a type with itself is limited from its from side).
    const forward = side === from;
    const sideTo = forward ? to : from;
    const unlabelled = typeId === pairDefault(side as ObjectType, sideTo)?.typeId;
    const links = pairs
      .filter((p) => unlabelled || p.types.some((t) => (forward ? t.typeId : t.inverseTypeId) === typeId))
      .map((p) => (forward ? { o: p.fromId, t: p.toId } : { o: p.toId, t: p.fromId }));
    if (!links.length) continue;
    const held = unlabelled
      ? sql`crm_associations x where x.portal_id = ${portalId} and x.to_type = ${sideTo}`
      : sql`crm_association_types x where x.portal_id = ${portalId} and x.to_type = ${sideTo} and x.type_id = ${typeId}`;
    const rows = await rawRows<[number, number]>(
      db,
      sql`select o, (select count(*) from ${held} and x.from_id = o)
          + (select count(distinct n.value ->> 't') from json_each(${JSON.stringify(links)}) n
             where n.value ->> 'o' = o and not exists (select 1 from ${held} and x.from_id = o and x.to_id = n.value ->> 't'))
        from (select distinct value ->> 'o' as o from json_each(${JSON.stringify(links)}))`,
    );
    const over = rows.find(([, count]) => Number(count) > max);
    if (over) {
      const message = `Association limit exceeded: association type ${typeId} allows at most ${max} ${sideTo} per ${side} record, and ${side} ${over[0]} would have ${over[1]}`;
      throw badRequest(message, { errors: [{ message, code: "ASSOCIATION_LIMIT_EXCEEDED", context: { typeId: [String(typeId)], maxToObjectIds: [String(max)] } }] });
    }
  }
}

