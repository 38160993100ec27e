/**
 * @module App extension settings (docs/reference/extensions.md): the calling and video conferencing extensions'
 * per-app documents. Like webhook settings they belong to an app and live in the control plane.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The kinds of settings document an app may hold, one of each. */
export const EXTENSION_KINDS = ["videoconferencing", "calling", "calling-recording", "calling-channel-connection"] as const;
export type ExtensionKind = (typeof EXTENSION_KINDS)[number];

/** One settings document per app and kind, as JSON of the fields the client sends (validated by the schemas). */
export const extensionSettings = sqliteTable(
  "extension_settings",
  {
    appId: integer("app_id").notNull(),
    kind: text("kind").$type<ExtensionKind>().notNull(),
    document: text("document", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.kind] })],
);
