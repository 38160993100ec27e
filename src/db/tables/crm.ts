/**
 * @module CRM records: contacts, companies, deals, products, line items, tickets, activities and leads
 * share one table with JSON string properties; associations are stored once per direction so either side is one
 * indexed read.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const OBJECT_TYPES = [
  "contacts", "companies", "deals", "products", "line_items", "tickets",
  // Activities (the real service's engagements) and leads: ordinary CRM objects with the same faces.
  "notes", "tasks", "calls", "meetings", "emails", "communications", "postal_mail", "leads",
] as const;
export type BuiltInObjectType = (typeof OBJECT_TYPES)[number];
/**
 * A custom object type as stored: `2-<schema id>` (src/db/tables/schemas.ts). Paths may also name it by
 * its fully qualified name or its name; src/services/crm/object-types.ts turns those into this key.
 */
export type CustomType = `2-${number}`;
export type ObjectType = BuiltInObjectType | CustomType;
export const CUSTOM_TYPE = /^2-\d{1,15}$/;
export const isCustomType = (type: string): type is CustomType => CUSTOM_TYPE.test(type);
export const isBuiltInType = (type: string): type is BuiltInObjectType => (OBJECT_TYPES as readonly string[]).includes(type);

/** The activity types: they carry `hs_timestamp` and show on the timeline of the records they are associated with. */
export const ACTIVITY_TYPES = ["notes", "tasks", "calls", "meetings", "emails", "communications", "postal_mail"] as const satisfies readonly ObjectType[];
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/**
 * The properties a search filters on fast, per type (docs/reference/crm.md "Search"): the ones integrations
 * filter on most (stages, pipelines, owners). Each has an expression index on its JSON value
 * (`crm_objects_<type>_<property>`); src/services/crm/search.ts writes the same expression for them.
 * Every index costs a row written per record write of the type that holds the property, so the list stays short.
 *
 * The indexes are in migrations/0037_search_indexes.sql, written by hand: drizzle-kit cannot write an
 * expression as an index column. A migration that rebuilds crm_objects must create them again;
 * test/crm/search-scale.test.ts checks that every property listed here has its index and that the search uses it.
 */
export const INDEXED_PROPERTIES = {
  contacts: ["lifecyclestage", "hubspot_owner_id"],
  deals: ["dealstage", "pipeline", "hubspot_owner_id"],
  tickets: ["hs_pipeline_stage", "hs_pipeline", "hubspot_owner_id"],
} as const satisfies Partial<Record<BuiltInObjectType, readonly string[]>>;

/**
 * The JSON path of an indexed property, inlined as a literal: SQLite uses an expression index only for the
 * identical expression, and a bound parameter is never identical to the index's literal. The names come
 * from INDEXED_PROPERTIES, never from input.
 */
export const indexedPath = (name: string) => `'$.${name}'`;

export const crmObjects = sqliteTable(
  "crm_objects",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    objectType: text("object_type").$type<ObjectType>().notNull(),
    properties: text("properties", { mode: "json" }).$type<Record<string, string>>().notNull(),
    /** Lower-cased contact email, kept in a column so uniqueness is enforced by an index. */
    email: text("email"),
    /** Stable LEAD_GUID identity and profile token of a contact (v1 `identity-profiles`, `profile-token`). */
    guid: text("guid").notNull(),
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    /** Set (with archived) on a contact merged into another (v1 merge-vids): reads of it resolve here. */
    mergedInto: integer("merged_into"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("crm_objects_list").on(t.portalId, t.objectType, t.archived, t.id),
    // The v1 recent lists, newest first: recently updated and recently created. Partial, on live
    // contacts only: every other record's write (products, deals and line items of the ecommerce sync)
    // skips them, which keeps a synced object at 5 rows written, not 7 (bench/README.md). Queries must
    // state the same condition with literals for SQLite to pick them (src/services/contacts-v1/contacts.ts).
    index("crm_objects_recent_updated")
      .on(t.portalId, t.updatedAt, t.id)
      .where(sql`${t.objectType} = 'contacts' and ${t.archived} = 0`),
    index("crm_objects_recent_created")
      .on(t.portalId, t.createdAt, t.id)
      .where(sql`${t.objectType} = 'contacts' and ${t.archived} = 0`),
    uniqueIndex("crm_objects_contact_email")
      .on(t.portalId, t.email)
      .where(sql`${t.objectType} = 'contacts' and ${t.archived} = 0 and ${t.email} is not null`),
    // Archived contacts by email (`archived=true&idProperty=email` on the v3 reads), newest archive first
    // (archiving sets updated_at). Partial, so only archiving a contact writes to it.
    index("crm_objects_archived_email")
      .on(t.portalId, t.email, t.updatedAt)
      .where(sql`${t.objectType} = 'contacts' and ${t.archived} = 1 and ${t.email} is not null`),
  ],
);

export const crmAssociations = sqliteTable(
  "crm_associations",
  {
    portalId: integer("portal_id").notNull(),
    fromId: integer("from_id").notNull(),
    toType: text("to_type").$type<ObjectType>().notNull(),
    toId: integer("to_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.fromId, t.toType, t.toId] })],
);

/**
 * One merge of a contact into another (`POST /contacts/v1/contact/merge-vids/{vid}`): the
 * survivor's `merged-vids` and `merge-audits`, and the merged-away contact's identities (its email stays
 * findable as a secondary identity of the survivor). A later merge of the survivor moves these rows on.
 */
export const contactMerges = sqliteTable(
  "contact_merges",
  {
    portalId: integer("portal_id").notNull(),
    mergedVid: integer("merged_vid").notNull(),
    canonicalVid: integer("canonical_vid").notNull(),
    /** The merged-away contact's lower-cased email (null when it had none) and its LEAD_GUID. */
    mergedEmail: text("merged_email"),
    mergedGuid: text("merged_guid").notNull(),
    mergedCreatedAt: integer("merged_created_at").notNull(),
    /** The survivor's email at the time of the merge (merge-audits `merged_to_email`). */
    survivorEmail: text("survivor_email"),
    firstName: text("first_name"),
    propertiesMoved: integer("properties_moved").notNull(),
    mergedAt: integer("merged_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.portalId, t.mergedVid] }),
    index("contact_merges_canonical").on(t.portalId, t.canonicalVid),
    index("contact_merges_email").on(t.portalId, t.mergedEmail),
  ],
);

/**
 * Custom property definitions of one account and object type (`/crm/v3/properties/{objectType}`). The
 * built-in properties are not stored (src/services/crm/properties.ts). A definition describes values
 * records already hold in `crm_objects.properties`; archiving it deletes the definition, not the values.
 */
export const crmProperties = sqliteTable(
  "crm_properties",
  {
    portalId: integer("portal_id").notNull(),
    objectType: text("object_type").$type<ObjectType>().notNull(),
    name: text("name").notNull(),
    label: text("label").notNull(),
    type: text("type").notNull(),
    fieldType: text("field_type").notNull(),
    groupName: text("group_name").notNull(),
    description: text("description").notNull().default(""),
    options: text("options", { mode: "json" }).$type<PropertyOption[]>().notNull(),
    displayOrder: integer("display_order").notNull().default(-1),
    hidden: integer("hidden", { mode: "boolean" }).notNull().default(false),
    formField: integer("form_field", { mode: "boolean" }).notNull().default(false),
    hasUniqueValue: integer("has_unique_value", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.portalId, t.objectType, t.name] }),
    // The unique properties of a type: the crm_objects triggers probe it on every record write
    // (migrations/0030_unique_properties.sql), finding nothing in one step for a type without any.
    index("crm_properties_unique").on(t.portalId, t.objectType).where(sql`${t.hasUniqueValue} = 1`),
  ],
);

/**
 * Custom property groups of one account and object type (`/crm/v3/properties/{objectType}/groups`). The
 * built-in group of each type is not stored (src/services/crm/property-groups.ts); every custom property's
 * `group_name` names a built-in group or a row here.
 */
export const crmPropertyGroups = sqliteTable(
  "crm_property_groups",
  {
    portalId: integer("portal_id").notNull(),
    objectType: text("object_type").$type<ObjectType>().notNull(),
    name: text("name").notNull(),
    label: text("label").notNull(),
    displayOrder: integer("display_order").notNull().default(-1),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.objectType, t.name] })],
);

export interface PropertyOption {
  label: string;
  value: string;
  description: string;
  displayOrder: number;
  hidden: boolean;
}
