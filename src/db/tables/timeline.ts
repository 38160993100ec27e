/**
 * @module Timeline tables (docs/reference/timeline.md): event types and their properties belong to a
 * developer app; events and visitor-token ties belong to an account. docs/explanation/storage.md shows an
 * example of each stored row.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const TIMELINE_OBJECT_TYPES = ["CONTACT", "COMPANY", "DEAL"] as const;
export type TimelineObjectType = (typeof TIMELINE_OBJECT_TYPES)[number];

export const PROPERTY_TYPES = ["String", "Numeric", "Enumeration", "Date"] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export interface EnumOption {
  label: string;
  value: string;
}

export interface TimelineIFrame {
  linkLabel: string;
  iframeLabel: string;
  iframeUri: string;
  width: number;
  height: number;
}

export const timelineEventTypes = sqliteTable(
  "timeline_event_types",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    appId: integer("app_id").notNull(),
    name: text("name").notNull(),
    headerTemplate: text("header_template"),
    detailTemplate: text("detail_template"),
    objectType: text("object_type", { enum: TIMELINE_OBJECT_TYPES }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("timeline_event_types_app").on(t.appId, t.id)],
);

export const timelineEventProperties = sqliteTable(
  "timeline_event_properties",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventTypeId: integer("event_type_id").notNull(),
    name: text("name").notNull(),
    label: text("label").notNull(),
    propertyType: text("property_type", { enum: PROPERTY_TYPES }).notNull(),
    options: text("options", { mode: "json" }).$type<EnumOption[]>().notNull().default(sql`'[]'`),
    /** CRM property of the associated record that each event's value of this property is also stamped onto. */
    objectProperty: text("object_property"),
    createdAt: integer("created_at").notNull(),
  },
  // Event values are keyed by property name, so a name is unique within its event type.
  (t) => [uniqueIndex("timeline_event_properties_name").on(t.eventTypeId, t.name)],
);

export const timelineEvents = sqliteTable(
  "timeline_events",
  {
    /** Internal row id: the tie-breaker of the rendered timeline's order and cursor. */
    rowId: integer("row_id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    eventTypeId: integer("event_type_id").notNull(),
    /** The integrator's event id: the idempotency key within (account, event type); the same id updates the event. */
    eventId: text("event_id").notNull(),
    objectType: text("object_type", { enum: TIMELINE_OBJECT_TYPES }).notNull(),
    /**
     * The associated record; null while the event waits for its utk to be tied to a contact (a utk alone
     * never creates a contact: the event stays invisible until one is tied to it by other means).
     */
    objectId: integer("object_id"),
    email: text("email"),
    utk: text("utk"),
    timestamp: integer("timestamp").notNull(),
    /** Custom property values, as strings, keyed by property name. */
    properties: text("properties", { mode: "json" }).$type<Record<string, string>>().notNull(),
    extraData: text("extra_data", { mode: "json" }).$type<unknown>(),
    timelineIFrame: text("timeline_iframe", { mode: "json" }).$type<TimelineIFrame>(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("timeline_events_key").on(t.portalId, t.eventTypeId, t.eventId),
    index("timeline_events_record").on(t.portalId, t.objectType, t.objectId, t.timestamp, t.rowId),
    index("timeline_events_pending").on(t.portalId, t.utk).where(sql`${t.objectId} is null`),
    index("timeline_events_type").on(t.eventTypeId),
  ],
);

/**
 * Control plane: which accounts hold (or may hold) events of an event type. Events live on the accounts'
 * shards and types on the control plane, so the app-wide checks and deletes of a type read this instead of
 * asking every shard (docs/explanation/scaling.md "App-level reads"). A row is written before the first event
 * of the type in the account (src/services/timeline/holders.ts), so it may outlive the events; never the
 * reverse.
 */
export const timelineEventHolders = sqliteTable(
  "timeline_event_holders",
  {
    eventTypeId: integer("event_type_id").notNull(),
    portalId: integer("portal_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventTypeId, t.portalId] }), index("timeline_event_holders_portal").on(t.portalId)],
);

/** A visitor token tied to the contact it identifies; events sent with only that utk then attach to the contact. */
export const timelineUtks = sqliteTable(
  "timeline_utks",
  {
    portalId: integer("portal_id").notNull(),
    utk: text("utk").notNull(),
    contactId: integer("contact_id").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.utk] })],
);
