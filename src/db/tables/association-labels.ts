/**
 * @module Association labels (docs/reference/crm.md "Association labels"): an account's USER_DEFINED label
 * definitions, the labels held by associated pairs, and the per-type association limits. Object types are
 * plain text so object types defined at run time fit as they are.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One direction of a USER_DEFINED label. Every label has two rows, one per direction, each with its own type
 * id; `inverse_type_id` names the other one. An unpaired label carries the same text both ways. Type ids are
 * numbered per account from 1000001 upward, above every HUBSPOT_DEFINED id, so a type id alone says its category.
 */
export const associationDefinitions = sqliteTable(
  "association_definitions",
  {
    portalId: integer("portal_id").notNull(),
    typeId: integer("type_id").notNull(),
    fromType: text("from_type").notNull(),
    toType: text("to_type").notNull(),
    name: text("name").notNull(),
    label: text("label").notNull(),
    inverseTypeId: integer("inverse_type_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.typeId] }), index("association_definitions_pair").on(t.portalId, t.fromType, t.toType)],
);

/**
 * A labelled type on one direction of an association (`crm_associations` holds the unlabelled default, which
 * every labelled pair also has). Written in both directions in the same batch; deleting the pair's
 * `crm_associations` row deletes these through a trigger.
 */
export const crmAssociationTypes = sqliteTable(
  "crm_association_types",
  {
    portalId: integer("portal_id").notNull(),
    fromId: integer("from_id").notNull(),
    toType: text("to_type").notNull(),
    toId: integer("to_id").notNull(),
    typeId: integer("type_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.fromId, t.toType, t.toId, t.typeId] }), index("crm_association_types_type").on(t.portalId, t.typeId)],
);

/** An account's limit on how many records of `to_type` one record may hold with one association type. */
export const associationLimits = sqliteTable(
  "association_limits",
  {
    portalId: integer("portal_id").notNull(),
    fromType: text("from_type").notNull(),
    toType: text("to_type").notNull(),
    typeId: integer("type_id").notNull(),
    maxToObjectIds: integer("max_to_object_ids").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.fromType, t.toType, t.typeId] })],
);
