/**
 * @module The activities on a record page's timeline (docs/reference/web.md): the notes, tasks, calls,
 * meetings, emails, communications and postal mail associated with a record, newest first by their
 * `hs_timestamp`, read in one bounded statement.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ACTIVITY_TYPES, type ActivityType } from "../../db/tables/crm";

/** At most this many activities on a record page; the page says when there are more. */
export const ACTIVITIES_SHOWN = 50;

export interface ActivityRow {
  id: number;
  type: ActivityType;
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
const TS = sql.raw(`(c.properties ->> '$.hs_timestamp')`);
const AT = sql`case when ${TS} glob '[0-9]*' and ${TS} not glob '*[^0-9]*' then cast(${TS} as integer) else cast(round((julianday(${TS}) - 2440587.5) * 86400000) as integer) end`;

/**
 * The newest `limit` live activities associated with one record, and whether there are more. One
 * statement: the record's association rows of the activity types (a range of their primary key), each
 * activity by its id, sorted by time, `limit + 1` rows. It visits every activity of the record (about three
 * rows each: its association, itself, the sort) to sort them; a record with thousands of activities pays
 * for them here. No total: counting them too cost two more rows per activity (a window over the same rows).
 */
export async function recordActivities(db: Db, portalId: number, recordId: number, limit = ACTIVITIES_SHOWN): Promise<{ rows: ActivityRow[]; hasMore: boolean }> {
  const types = sql.join(
    ACTIVITY_TYPES.map((t) => sql`${t}`),
    sql`, `,
  );
  const rows = await db.all<{ id: number; type: ActivityType; properties: string; at: number | null }>(sql`
    select c.id as id, c.object_type as type, c.properties as properties, ${AT} as at
    from crm_associations a join crm_objects c on c.id = a.to_id
    where a.portal_id = ${portalId} and a.from_id = ${recordId} and a.to_type in (${types}) and c.portal_id = ${portalId} and c.archived = 0
    order by at desc, c.id desc limit ${limit + 1}`);
  return {
    rows: rows.slice(0, limit).map((r) => ({ id: r.id, type: r.type, properties: JSON.parse(r.properties) as Record<string, string>, at: r.at })),
    hasMore: rows.length > limit,
  };
}
