/**
 * @module The activities on a record page's timeline (docs/reference/web.md): the notes, tasks, calls,
 * meetings, emails, communications and postal mail associated with a record, newest first by their
 * `hs_timestamp`, read in one bounded statement.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ACTIVITY_TYPES, type ActivityType } from "../../db/tables/crm";

/** At most this many activities on a record page; the page says how many more there are. */
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
const AT = sql.raw(
  `case when ts glob '[0-9]*' and ts not glob '*[^0-9]*' then cast(ts as integer) else cast(round((julianday(ts) - 2440587.5) * 86400000) as integer) end`,
);

/**
 * The newest `limit` live activities associated with one record, and how many there are in all. One
 * statement: the record's association rows of the activity types (a range of their primary key), each
 * activity by its id, the total as a window over the same rows, sorted by time. It visits every activity
 * of the record (about two rows each) to sort them; a record with thousands of activities pays for them here.
 */
export async function recordActivities(db: Db, portalId: number, recordId: number, limit = ACTIVITIES_SHOWN): Promise<{ rows: ActivityRow[]; total: number }> {
  const types = sql.join(
    ACTIVITY_TYPES.map((t) => sql`${t}`),
    sql`, `,
  );
  const rows = await db.all<{ id: number; type: ActivityType; properties: string; at: number | null; total: number }>(sql`
    select id, type, properties, ${AT} as at, total from (
      select c.id as id, c.object_type as type, c.properties as properties, c.properties ->> '$.hs_timestamp' as ts, count(*) over () as total
      from crm_associations a join crm_objects c on c.id = a.to_id
      where a.portal_id = ${portalId} and a.from_id = ${recordId} and a.to_type in (${types}) and c.portal_id = ${portalId} and c.archived = 0
    ) order by at desc, id desc limit ${limit}`);
  return {
    rows: rows.map((r) => ({ id: r.id, type: r.type, properties: JSON.parse(r.properties) as Record<string, string>, at: r.at })),
    total: rows[0]?.total ?? 0,
  };
}
