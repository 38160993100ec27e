/**
 * @module A record's rendered timeline: its events newest first, each rendered by its event type's templates
 * (src/services/timeline/render.ts). One indexed query per page (timeline_events_record) on the account's
 * shard, then one read of the page's event types on the control plane (the two live in different databases).
 */
import { inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { timelineEventTypes, type TimelineIFrame, type TimelineObjectType } from "../../db/tables/timeline";
import { renderEvent } from "./render";

export interface FeedCursor {
  timestamp: number;
  rowId: number;
}

/** The cursor is `<timestamp>.<rowId>` of the last entry shown: stable while events are added above it. */
export const encodeCursor = (c: FeedCursor) => `${c.timestamp}.${c.rowId}`;
export function decodeCursor(s: string): FeedCursor {
  const [ts, id] = s.split(".");
  return { timestamp: Number(ts), rowId: Number(id) };
}

/**
 * A record's events newest first (`?1` account, `?2` object type, `?3` record, `?4` rows), along the
 * timeline_events_record index; EVENTS_AFTER continues below a cursor (`?5` timestamp, `?6` row id). Constant
 * text: the record page runs it on every view.
 */
const EVENTS = `select row_id, event_id, event_type_id, object_id, email, utk, timestamp, properties, extra_data, timeline_iframe
  from timeline_events where portal_id = ?1 and object_type = ?2 and object_id = ?3`;
const EVENTS_FIRST = `${EVENTS} order by timestamp desc, row_id desc limit ?4`;
const EVENTS_AFTER = `${EVENTS} and (timestamp < ?5 or (timestamp = ?5 and row_id < ?6)) order by timestamp desc, row_id desc limit ?4`;

type EventRow = [number, string, number, number | null, string | null, string | null, number, string, string | null, string | null];

/** An EVENTS row with its JSON columns read, as the table's columns type them. */
const eventFromRow = ([rowId, eventId, eventTypeId, objectId, email, utk, timestamp, properties, extraData, iframe]: EventRow) => ({
  rowId,
  eventId,
  eventTypeId,
  objectId,
  email,
  utk,
  timestamp,
  properties: JSON.parse(properties) as Record<string, string>,
  extraData: extraData === null ? null : (JSON.parse(extraData) as unknown),
  timelineIFrame: iframe === null ? null : (JSON.parse(iframe) as TimelineIFrame),
});

export async function recordTimeline(
  db: Db,
  control: Db,
  portalId: number,
  objectType: TimelineObjectType,
  objectId: number,
  limit: number,
  after?: FeedCursor,
) {
  const rows = (
    await (after
      ? db.$client.prepare(EVENTS_AFTER).bind(portalId, objectType, objectId, limit + 1, after.timestamp, after.rowId)
      : db.$client.prepare(EVENTS_FIRST).bind(portalId, objectType, objectId, limit + 1)
    ).raw<EventRow>()
  ).map(eventFromRow);

  const page = rows.slice(0, limit);
  const typeIds = [...new Set(page.map((r) => r.eventTypeId))];
  const types = typeIds.length
    ? await control
        .select({ id: timelineEventTypes.id, typeName: timelineEventTypes.name, headerTemplate: timelineEventTypes.headerTemplate, detailTemplate: timelineEventTypes.detailTemplate })
        .from(timelineEventTypes)
        .where(inArray(timelineEventTypes.id, typeIds))
        .all()
    : [];
  const typeById = new Map(types.map((t) => [t.id, t]));
  // Deleting an event type deletes its events on every shard (src/services/timeline/types.ts), so a missing type
  // is only the instant between the two; such an event is left out, as an inner join would.
  const results = page.flatMap((row) => {
    const type = typeById.get(row.eventTypeId);
    if (!type) return [];
    const r = { ...row, ...type };
    const { headerHtml, detailHtml } = renderEvent(
      { name: r.typeName, objectType, headerTemplate: r.headerTemplate, detailTemplate: r.detailTemplate },
      { ...r, eventId: r.eventId },
    );
    const entry: Record<string, unknown> = {
      id: r.eventId,
      eventTypeId: r.eventTypeId,
      eventTypeName: r.typeName,
      timestamp: r.timestamp,
      headerHtml,
      detailHtml,
    };
    if (r.timelineIFrame) entry.timelineIFrame = r.timelineIFrame;
    return [entry];
  });
  const last = page.at(-1);
  const next = rows.length > limit && last ? encodeCursor({ timestamp: last.timestamp, rowId: last.rowId }) : null;
  return { results, next };
}
