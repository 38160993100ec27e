/**
 * @module The activities on a record page's timeline (docs/reference/web.md): the notes, tasks, calls,
 * meetings, emails, communications and postal mail associated with a record, newest first by their
 * `hs_timestamp`, read in one bounded statement.
 */
import type { Db } from "../../db/client";
import { ACTIVITY_TYPES, type ActivityType } from "../../db/tables/crm";

/** At most this many activities on a record page; the page says when there are more. */
export const ACTIVITIES_SHOWN = 50;

export interface ActivityRow {
  id: number;
  type: ActivityType;
  /** The properties as stored, JSON text: with the id and type, all an entry of the page shows of it. */
  stored: string;
  properties: Record<string, string>;
  /** `hs_timestamp` in epoch ms, null when it is not a time. */
  at: number | null;
}

/**
 * `hs_timestamp` as epoch ms, in SQL: the API takes it as epoch milliseconds or as an ISO 8601 instant (as
 * the real service does) and keeps the string as written, so ordering by the raw string would put every
 * epoch value before every ISO one. `julianday` reads ISO instants with a `Z` or an offset; anything else
 * is null and sorts last.
 */
const TS = `(c.properties ->> '$.hs_timestamp')`;
const AT = `case when ${TS} glob '[0-9]*' and ${TS} not glob '*[^0-9]*' then cast(${TS} as integer) else cast(round((julianday(${TS}) - 2440587.5) * 86400000) as integer) end`;

/**
 * The newest `?3` live activities associated with the record `?2` of the account `?1`, the activity types
 * bound from `?4` on. One statement: the record's association rows of the activity types (a range of their
 * primary key), each activity by its id, sorted by time. It visits every activity of the record (about three
 * rows each: its association, itself, the sort) to sort them; a record with thousands of activities pays
 * for them here. No total: counting them too cost two more rows per activity (a window over the same rows).
 * Constant text: the record page runs it on every view.
 */
const ACTIVITIES = `select c.id, c.object_type, c.properties, ${AT} as at
  from crm_associations a join crm_objects c on c.id = a.to_id
  where a.portal_id = ?1 and a.from_id = ?2 and a.to_type in (${ACTIVITY_TYPES.map((_, i) => `?${i + 4}`).join(", ")}) and c.portal_id = ?1 and c.archived = 0
  order by at desc, c.id desc limit ?3`;

/** The newest `limit` live activities associated with one record (ACTIVITIES), and whether there are more. */
export async function recordActivities(db: Db, portalId: number, recordId: number, limit = ACTIVITIES_SHOWN): Promise<{ rows: ActivityRow[]; hasMore: boolean }> {
  const rows = await db.$client
    .prepare(ACTIVITIES)
    .bind(portalId, recordId, limit + 1, ...ACTIVITY_TYPES)
    .raw<[number, ActivityType, string, number | null]>();
  const shown = rows.length > limit ? rows.slice(0, limit) : rows;
  return {
    rows: shown.map(([id, type, stored, at]) => ({ id, type, stored, properties: JSON.parse(stored) as Record<string, string>, at })),
    hasMore: rows.length > limit,
  };
}
