/**
 * @module A fixture's timeline events (docs/reference/testkit.md, "Fixtures"): events of an app's timeline
 * event template on records of the document, written as `POST /integrators/timeline/v3/events` writes them
 * (the same row, the template's token rules, the objectProperty stamps on the record), in the fixture's batch.
 *
 * The template must be one of an app installed in the account: an account sees an app's timeline only
 * through the app's install, as the real service shows an app's events only where the app is installed.
 */
import type { Db } from "../../db/client";
import type { ObjectType } from "../../db/tables/crm";
import type { ErrorDetail } from "../../lib/errors";
import type { FixtureTimelineEvent } from "../../schemas/testkit";
import { coerceValue, RECORD_TYPE } from "../timeline/events";
import type { EventTypeRow, PropertyRow } from "../timeline/types";
import { problem } from "./problems";

export interface PlannedEvent {
  eventTypeId: number;
  eventId: string;
  objectType: EventTypeRow["objectType"];
  /** The record's place in the document's records (its id is the first record's id plus this). */
  index: number;
  timestamp: number;
  properties: Record<string, string>;
  extraData: string | null;
  iframe: string | null;
}

/** A date token may come as epoch ms or as an ISO date, as the v3 API takes it. */
const tokenValue = (raw: string | number | boolean) => {
  if (typeof raw === "string" && /^\d{4}-\d{2}-\d{2}(T|$)/.test(raw)) {
    const ms = Date.parse(raw);
    if (Number.isFinite(ms)) return String(ms);
  }
  return raw;
};

/**
 * Checks the events against their templates and records; stamps the objectProperty values onto the planned
 * records' properties (`properties(index)`), as an event's write stamps them on its record.
 */
export async function planTimeline(
  db: Db,
  control: Db,
  portalId: number,
  events: FixtureTimelineEvent[],
  refs: Map<string, { type: ObjectType; index: number }>,
  properties: (index: number) => Record<string, string>,
  errors: ErrorDetail[],
  now: number,
): Promise<PlannedEvent[]> {
  if (!events.length) return [];
  const ids = [...new Set(events.map((e) => Number(e.eventTemplateId)))];
  const inIds = JSON.stringify(ids);
  const [types, props, stored] = await Promise.all([
    // Templates of apps installed in the account only.
    control.$client
      .prepare(
        `select t.id as id, t.object_type as objectType from timeline_event_types t join installs i on i.app_id = t.app_id and i.portal_id = ?1
         where t.id in (select value from json_each(?2))`,
      )
      .bind(portalId, inIds)
      .all<Pick<EventTypeRow, "id" | "objectType">>(),
    control.$client
      .prepare(
        `select event_type_id as eventTypeId, name, property_type as propertyType, options, object_property as objectProperty
         from timeline_event_properties where event_type_id in (select value from json_each(?1))`,
      )
      .bind(inIds)
      .all<{ eventTypeId: number; name: string; propertyType: PropertyRow["propertyType"]; options: string; objectProperty: string | null }>(),
    // The stored events' ids, so a repeated id is a problem of the document and not a failed batch.
    db.$client
      .prepare(
        `select event_type_id || ':' || event_id as k from timeline_events where portal_id = ?1
         and event_type_id in (select value from json_each(?2)) and event_id in (select value from json_each(?3))`,
      )
      .bind(portalId, inIds, JSON.stringify(events.flatMap((e) => (e.id ? [e.id] : []))))
      .all<{ k: string }>(),
  ]);
  const typeById = new Map(types.results.map((t) => [t.id, t]));
  const tokensOf = new Map<number, Map<string, (typeof props.results)[number]>>();
  for (const p of props.results) tokensOf.set(p.eventTypeId, (tokensOf.get(p.eventTypeId) ?? new Map()).set(p.name, p));
  const taken = new Set(stored.results.map((r) => r.k));

  const out: PlannedEvent[] = [];
  events.forEach((e, i) => {
    const at = `timelineEvents[${i}].`;
    const type = typeById.get(Number(e.eventTemplateId));
    const record = refs.get(e.ref);
    if (!type) errors.push(problem(`${at}eventTemplateId`, `no event template ${e.eventTemplateId} of an app installed in this account`, "UNKNOWN_TEMPLATE"));
    if (!record) errors.push(problem(`${at}ref`, `no record of the document has the ref ${JSON.stringify(e.ref)}`, "UNKNOWN_REF"));
    if (!type || !record) return;
    const wanted = RECORD_TYPE[type.objectType];
    if (record.type !== wanted) {
      errors.push(problem(`${at}ref`, `template ${type.id} is of ${wanted}; ${JSON.stringify(e.ref)} is one of ${record.type}`, "WRONG_OBJECT_TYPE"));
      return;
    }
    const eventId = e.id ?? crypto.randomUUID();
    const key = `${type.id}:${eventId}`;
    if (taken.has(key)) {
      errors.push(problem(`${at}id`, `template ${type.id} has an event ${JSON.stringify(eventId)} already (in the document or the account): ids are unique per template`, "DUPLICATE_EVENT"));
      return;
    }
    taken.add(key);
    const tokens = tokensOf.get(type.id) ?? new Map();
    const values: Record<string, string> = {};
    const stamp: Record<string, string> = {};
    for (const [name, raw] of Object.entries(e.tokens)) {
      const token = tokens.get(name);
      if (!token) {
        errors.push(problem(`${at}tokens.${name}`, `template ${type.id} has no token ${name}`, "UNKNOWN_TOKEN"));
        continue;
      }
      const result = coerceValue({ propertyType: token.propertyType, options: JSON.parse(token.options) as { label: string; value: string }[] }, tokenValue(raw));
      if ("error" in result) errors.push(problem(`${at}tokens.${name}`, result.error, "INVALID_PROPERTY_VALUE"));
      else {
        values[name] = result.value;
        if (token.objectProperty) stamp[token.objectProperty] = result.value;
      }
    }
    Object.assign(properties(record.index), stamp);
    const f = e.timelineIFrame;
    out.push({
      eventTypeId: type.id,
      eventId,
      objectType: type.objectType,
      index: record.index,
      timestamp: e.timestamp === undefined ? now : Date.parse(e.timestamp),
      properties: values,
      extraData: e.extraData === undefined ? null : JSON.stringify(e.extraData),
      iframe: f ? JSON.stringify({ linkLabel: f.linkLabel, iframeLabel: f.headerLabel, iframeUri: f.url, width: f.width, height: f.height }) : null,
    });
  });
  return out;
}
