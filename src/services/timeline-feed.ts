/**
 * @module A record's rendered timeline: its events newest first, each rendered by its event type's templates
 * (timeline-render.ts). One indexed query per page (timeline_events_record), joined to the event types.
 */
import { and, desc, eq, lt, or } from "drizzle-orm";
import type { Db } from "../db/client";
import { timelineEventTypes, timelineEvents, type TimelineObjectType } from "../db/tables/timeline";
import { renderEvent } from "./timeline-render";

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

export async function recordTimeline(
  db: Db,
  portalId: number,
  objectType: TimelineObjectType,
  objectId: number,
  limit: number,
  after?: FeedCursor,
) {
  const e = timelineEvents;
  const rows = await db
    .select({
      rowId: e.rowId,
      eventId: e.eventId,
      eventTypeId: e.eventTypeId,
      objectId: e.objectId,
      email: e.email,
      utk: e.utk,
      timestamp: e.timestamp,
      properties: e.properties,
      extraData: e.extraData,
      timelineIFrame: e.timelineIFrame,
      typeName: timelineEventTypes.name,
      headerTemplate: timelineEventTypes.headerTemplate,
      detailTemplate: timelineEventTypes.detailTemplate,
    })
    .from(e)
    .innerJoin(timelineEventTypes, eq(timelineEventTypes.id, e.eventTypeId))
    .where(
      and(
        eq(e.portalId, portalId),
        eq(e.objectType, objectType),
        eq(e.objectId, objectId),
        after ? or(lt(e.timestamp, after.timestamp), and(eq(e.timestamp, after.timestamp), lt(e.rowId, after.rowId))) : undefined,
      ),
    )
    .orderBy(desc(e.timestamp), desc(e.rowId))
    .limit(limit + 1)
    .all();

  const page = rows.slice(0, limit);
  const results = page.map((r) => {
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
    return entry;
  });
  const last = page.at(-1);
  const next = rows.length > limit && last ? encodeCursor({ timestamp: last.timestamp, rowId: last.rowId }) : null;
  return { results, next };
}
