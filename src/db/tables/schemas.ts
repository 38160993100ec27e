/**
 * @module Custom object schemas of an account (`/crm-object-schemas/v3/schemas`, docs/reference/schemas.md).
 * A schema's integer id, from the database's id range, names its type: `2-<id>` is the object type id its
 * records carry in `crm_objects.object_type`. Its properties are the account's custom properties of that
 * type (`crm_properties`); its association definitions live here, each with an id of its own.
 */
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export interface SchemaAssociation {
  /**
   * The definition's id, also the v4 association type id (USER_DEFINED, unlabelled) of its direction from the
   * schema's type to `toObjectTypeId`. Ids are unique among the account's definitions.
   */
  id: number;
  /** The type id of the other direction (to → the schema's type); definitions stored without one use `id`. */
  inverseId?: number;
  toObjectTypeId: string;
  name: string | null;
  createdAt: number;
  updatedAt: number;
}

export const crmSchemas = sqliteTable(
  "crm_schemas",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    name: text("name").notNull(),
    singular: text("singular").notNull(),
    plural: text("plural").notNull(),
    description: text("description"),
    primaryDisplayProperty: text("primary_display_property"),
    secondaryDisplayProperties: text("secondary_display_properties", { mode: "json" }).$type<string[]>().notNull(),
    requiredProperties: text("required_properties", { mode: "json" }).$type<string[]>().notNull(),
    searchableProperties: text("searchable_properties", { mode: "json" }).$type<string[]>().notNull(),
    associations: text("associations", { mode: "json" }).$type<SchemaAssociation[]>().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** Set by archiving; a purge deletes the row. An archived schema's name stays taken until it is purged. */
    archivedAt: integer("archived_at"),
  },
  (t) => [uniqueIndex("crm_schemas_name").on(t.portalId, t.name)],
);
