/**
 * @module Which accounts hold events of an event type (the control plane's `timeline_event_holders`), so the
 * app-wide rules of an event type (who may delete or replace it, where its events are deleted) read one
 * control-plane table instead of every shard. A row is recorded before the event write that needs it, so the
 * table never misses an account that holds events; it may name one whose events are gone (harmless: the
 * check is then stricter, the delete visits a shard with nothing to delete).
 */
import { and, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { CONTROL_SHARD, shardOrdinal } from "../../db/shards";
import { timelineEventHolders } from "../../db/tables/timeline";
import { accounts } from "../../db/tables/tenancy";

/** Pairs this isolate has recorded: the write path then skips the statement (a type's id is never reused). */
const known = new Set<string>();
const MAX_KNOWN = 50_000;

/** Records that `portalId` holds events of `eventTypeIds`: one statement, none when this isolate already did. */
export async function recordHolders(control: Db, portalId: number, eventTypeIds: Iterable<number>): Promise<void> {
  const fresh = [...new Set(eventTypeIds)].filter((id) => !known.has(`${id}:${portalId}`));
  if (!fresh.length) return;
  await control.run(sql`insert or ignore into timeline_event_holders (event_type_id, portal_id)
    select value, ${portalId} from json_each(${JSON.stringify(fresh)})`);
  if (known.size > MAX_KNOWN) known.clear();
  for (const id of fresh) known.add(`${id}:${portalId}`);
}

/** Whether an account other than `portalId` holds events of the type: one indexed probe. */
export async function heldElsewhere(control: Db, eventTypeId: number, portalId: number): Promise<boolean> {
  const row = await control
    .select({ x: sql<number>`1` })
    .from(timelineEventHolders)
    .where(and(eq(timelineEventHolders.eventTypeId, eventTypeId), ne(timelineEventHolders.portalId, portalId)))
    .limit(1)
    .get();
  return Boolean(row);
}

/** The databases holding events of the type (each holder's shard, `DB` for the control plane), in shard order. */
export async function holderShards(control: Db, eventTypeId: number): Promise<string[]> {
  const rows = await control
    // An account's events live on its companion shard when it has one, else on its shard.
    .selectDistinct({ shard: sql<string | null>`coalesce(${accounts.companion}, ${accounts.shard})` })
    .from(timelineEventHolders)
    .innerJoin(accounts, eq(accounts.portalId, timelineEventHolders.portalId))
    .where(eq(timelineEventHolders.eventTypeId, eventTypeId))
    .all();
  return rows.map((r) => r.shard ?? CONTROL_SHARD).sort((a, b) => shardOrdinal(a) - shardOrdinal(b) || a.localeCompare(b));
}

/** The type's holder rows, deleted with the type (a statement for the control plane's batch). */
export const deleteHolders = (control: Db, eventTypeId: number) => control.delete(timelineEventHolders).where(eq(timelineEventHolders.eventTypeId, eventTypeId));

/**
 * After the account's events were written in bulk behind the write path (an import, a snapshot's restore, the
 * test kit's fixtures): its holder rows from what its shard now holds. Two statements.
 */
export async function rebuildHolders(control: Db, shard: Db, portalId: number): Promise<void> {
  const rows = await shard.all<{ t: number }>(sql`select distinct event_type_id as t from timeline_events where portal_id = ${portalId}`);
  await recordHolders(control, portalId, rows.map((r) => r.t));
}
