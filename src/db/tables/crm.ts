/**
 * @module CRM records (issue 2 §5): contacts, companies, deals, products, line items and tickets share one
 * table with JSON string properties; associations are stored once per direction so either side is one
 * indexed read.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const OBJECT_TYPES = ["contacts", "companies", "deals", "products", "line_items", "tickets"] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

export const crmObjects = sqliteTable(
  "crm_objects",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    objectType: text("object_type", { enum: OBJECT_TYPES }).notNull(),
    properties: text("properties", { mode: "json" }).$type<Record<string, string>>().notNull(),
    /** Lower-cased contact email, kept in a column so uniqueness is enforced by an index. */
    email: text("email"),
    /** Stable LEAD_GUID identity and profile token of a contact (spec 2.1). */
    guid: text("guid").notNull(),
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("crm_objects_list").on(t.portalId, t.objectType, t.archived, t.id),
    uniqueIndex("crm_objects_contact_email")
      .on(t.portalId, t.email)
      .where(sql`${t.objectType} = 'contacts' and ${t.archived} = 0 and ${t.email} is not null`),
  ],
);

export const crmAssociations = sqliteTable(
  "crm_associations",
  {
    portalId: integer("portal_id").notNull(),
    fromId: integer("from_id").notNull(),
    toType: text("to_type", { enum: OBJECT_TYPES }).notNull(),
    toId: integer("to_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.fromId, t.toType, t.toId] })],
);
