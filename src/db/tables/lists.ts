/**
 * @module Lists of CRM records (docs/reference/lists.md): the v3 lists and the legacy v1 contact lists are
 * the same rows. A MANUAL or SNAPSHOT list's members are rows of `list_memberships`; a DYNAMIC list has no
 * member rows: its `filter_branch` is evaluated when it is read, so a record joins or leaves as soon as its
 * properties change. Archiving sets `deleted_at` (a restore clears it); nothing is deleted but memberships.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";

export const PROCESSING_TYPES = ["MANUAL", "DYNAMIC", "SNAPSHOT"] as const;
export type ProcessingType = (typeof PROCESSING_TYPES)[number];

export const lists = sqliteTable(
  "lists",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    /** The CRM object type of the members (`contacts`, `companies`, …). */
    objectType: text("object_type").notNull(),
    name: text("name").notNull(),
    /** The name lower-cased: names are unique, ignoring case, among an account's live lists. */
    nameKey: text("name_key").notNull(),
    processingType: text("processing_type", { enum: PROCESSING_TYPES }).notNull(),
    /** The filter branch as given (DYNAMIC and SNAPSHOT lists); null for MANUAL ones. */
    filterBranch: text("filter_branch", { mode: "json" }).$type<unknown>(),
    /** Starts at 1; each change of the name or filters adds one, as the real service's listVersion. */
    version: integer("version").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    filtersUpdatedAt: integer("filters_updated_at").notNull(),
    deletedAt: integer("deleted_at"),
    /** The folder the list is in (`list_folders.id` of the account); 0: the root folder. */
    folderId: integer("folder_id").notNull().default(0),
  },
  (t) => [
    uniqueIndex("lists_name").on(t.portalId, t.nameKey).where(sql`deleted_at is null`),
    index("lists_type").on(t.portalId, t.objectType, t.processingType, t.id),
  ],
);

/** A record in a MANUAL or SNAPSHOT list, since `added_at`. */
export const listMemberships = sqliteTable(
  "list_memberships",
  {
    portalId: integer("portal_id").notNull(),
    listId: integer("list_id").notNull(),
    recordId: integer("record_id").notNull(),
    addedAt: integer("added_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.listId, t.recordId] }), index("list_memberships_record").on(t.portalId, t.recordId)],
);

/**
 * A folder of the account's lists (docs/reference/lists.md "Folders"). Ids are the account's own (1, 2, …:
 * the largest plus one), as folders are named only inside the account; 0 is the root folder, which has no row.
 */
export const listFolders = sqliteTable(
  "list_folders",
  {
    portalId: integer("portal_id").notNull(),
    id: integer("id").notNull(),
    /** 0: in the root folder. */
    parentId: integer("parent_id").notNull(),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.id] }), index("list_folders_parent").on(t.portalId, t.parentId)],
);
