/**
 * @module CRM card record types: one row per card an app defines. The card belongs to the app, not to an
 * account; every account that installs the app sees it on records of the card's object types.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const CARD_OBJECT_TYPES = ["CONTACT", "COMPANY", "DEAL", "TICKET"] as const;
export type CardObjectType = (typeof CARD_OBJECT_TYPES)[number];

export const PROPERTY_DATA_TYPES = ["BOOLEAN", "CURRENCY", "DATE", "DATETIME", "EMAIL", "LINK", "NUMERIC", "STRING", "STATUS"] as const;
export const STATUS_OPTION_TYPES = ["SUCCESS", "DEFAULT", "WARNING", "DANGER", "INFO"] as const;

export interface StoredPropertyDefinition {
  name: string;
  label: string;
  dataType: (typeof PROPERTY_DATA_TYPES)[number];
  options?: { type: (typeof STATUS_OPTION_TYPES)[number]; label: string; name: string }[];
}

export const cardTypes = sqliteTable(
  "card_types",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    appId: integer("app_id").notNull(),
    title: text("title").notNull(),
    baseUris: text("base_uris", { mode: "json" }).$type<string[]>().notNull(),
    dataFetchUri: text("data_fetch_uri").notNull(),
    propertyDefinitions: text("property_definitions", { mode: "json" }).$type<StoredPropertyDefinition[]>().notNull(),
    /** associatedHubSpotObjectTypes: where the card appears. */
    objectTypes: text("object_types", { mode: "json" }).$type<CardObjectType[]>().notNull(),
    /** associatedHubSpotObjectTypeProperties: CRM properties sent with the data fetch, per object type. */
    objectTypeProperties: text("object_type_properties", { mode: "json" })
      .$type<Partial<Record<CardObjectType, string[]>>>()
      .notNull()
      .default(sql`'{}'`),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("card_types_app").on(t.appId, t.id)],
);
