-- Custom migration: drizzle-kit cannot write an expression as an index column.
-- Search filters on the properties integrations filter on most (INDEXED_PROPERTIES in src/db/tables/crm.ts,
-- docs/reference/crm.md "Search"): the live records of a type holding one value, in id order, so a search's
-- bounded count reads only matches and its page in id order only the page. The expression is the one
-- src/services/crm/search.ts writes for these properties (the path a literal: SQLite uses an expression
-- index only for the identical expression). object_type and archived are in the key though the condition fixes
-- them: with them the index has more equality columns than crm_objects_list, which is what makes SQLite
-- prefer it. Partial on the type's live records that hold the property: other types' writes and records
-- without the property never touch it.
CREATE INDEX `crm_objects_contacts_lifecyclestage` ON `crm_objects` (`portal_id`, `object_type`, `archived`, json_extract(properties, '$.lifecyclestage'), `id`)
  WHERE `object_type` = 'contacts' AND `archived` = 0 AND json_extract(properties, '$.lifecyclestage') IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `crm_objects_contacts_hubspot_owner_id` ON `crm_objects` (`portal_id`, `object_type`, `archived`, json_extract(properties, '$.hubspot_owner_id'), `id`)
  WHERE `object_type` = 'contacts' AND `archived` = 0 AND json_extract(properties, '$.hubspot_owner_id') IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `crm_objects_deals_dealstage` ON `crm_objects` (`portal_id`, `object_type`, `archived`, json_extract(properties, '$.dealstage'), `id`)
  WHERE `object_type` = 'deals' AND `archived` = 0 AND json_extract(properties, '$.dealstage') IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `crm_objects_deals_pipeline` ON `crm_objects` (`portal_id`, `object_type`, `archived`, json_extract(properties, '$.pipeline'), `id`)
  WHERE `object_type` = 'deals' AND `archived` = 0 AND json_extract(properties, '$.pipeline') IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `crm_objects_deals_hubspot_owner_id` ON `crm_objects` (`portal_id`, `object_type`, `archived`, json_extract(properties, '$.hubspot_owner_id'), `id`)
  WHERE `object_type` = 'deals' AND `archived` = 0 AND json_extract(properties, '$.hubspot_owner_id') IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `crm_objects_tickets_hs_pipeline_stage` ON `crm_objects` (`portal_id`, `object_type`, `archived`, json_extract(properties, '$.hs_pipeline_stage'), `id`)
  WHERE `object_type` = 'tickets' AND `archived` = 0 AND json_extract(properties, '$.hs_pipeline_stage') IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `crm_objects_tickets_hs_pipeline` ON `crm_objects` (`portal_id`, `object_type`, `archived`, json_extract(properties, '$.hs_pipeline'), `id`)
  WHERE `object_type` = 'tickets' AND `archived` = 0 AND json_extract(properties, '$.hs_pipeline') IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `crm_objects_tickets_hubspot_owner_id` ON `crm_objects` (`portal_id`, `object_type`, `archived`, json_extract(properties, '$.hubspot_owner_id'), `id`)
  WHERE `object_type` = 'tickets' AND `archived` = 0 AND json_extract(properties, '$.hubspot_owner_id') IS NOT NULL;
