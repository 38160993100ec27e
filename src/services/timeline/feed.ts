/**
 * @module A record's rendered timeline: its events newest first, each rendered by its event type's templates
 * (src/services/timeline/render.ts). One indexed query per page (timeline_events_record) on the account's
 * shard, then one read of the page's event types on the control plane (the two live in different databases).
 */
import { and, desc, eq, inArray, lt, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { timelineEventTypes, timelineEvents, type TimelineObjectType } from "../../db/tables/timeline";
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

export async function recordTimeline(
  db: Db,
  control: Db,
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
    })
    .from(e)
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
