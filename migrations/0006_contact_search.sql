-- Issue 18: full-text index of contacts for `GET /contacts/v1/search/query` (docs/contacts.md "Search").
-- drizzle cannot express an FTS5 table or triggers, so this migration is written by hand (--custom).
-- One row per live contact, rowid = crm_objects.id; `portal` holds 'p<portal_id>' so every MATCH is
-- narrowed to one account inside the index. Triggers keep it in step with every writer of crm_objects
-- (CRM v3, v1, timeline email association, /tracking/v1/identify, the ecommerce bridge).
CREATE VIRTUAL TABLE `contact_search` USING fts5(`portal`, `terms`, tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `contact_search_insert` AFTER INSERT ON `crm_objects`
WHEN new.`object_type` = 'contacts' AND new.`archived` = 0
BEGIN
  INSERT INTO `contact_search` (`rowid`, `portal`, `terms`) VALUES (new.`id`, 'p' || new.`portal_id`,
    ifnull(json_extract(new.`properties`, '$.email'), '') || ' ' || ifnull(json_extract(new.`properties`, '$.firstname'), '') || ' ' || ifnull(json_extract(new.`properties`, '$.lastname'), '') || ' ' || ifnull(json_extract(new.`properties`, '$.phone'), '') || ' ' || replace(replace(replace(replace(replace(ifnull(json_extract(new.`properties`, '$.phone'), ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') || ' ' || ifnull(json_extract(new.`properties`, '$.company'), ''));
END;
--> statement-breakpoint
CREATE TRIGGER `contact_search_update` AFTER UPDATE OF `properties`, `archived` ON `crm_objects`
WHEN new.`object_type` = 'contacts'
BEGIN
  DELETE FROM `contact_search` WHERE `rowid` = old.`id`;
  INSERT INTO `contact_search` (`rowid`, `portal`, `terms`) SELECT new.`id`, 'p' || new.`portal_id`,
    ifnull(json_extract(new.`properties`, '$.email'), '') || ' ' || ifnull(json_extract(new.`properties`, '$.firstname'), '') || ' ' || ifnull(json_extract(new.`properties`, '$.lastname'), '') || ' ' || ifnull(json_extract(new.`properties`, '$.phone'), '') || ' ' || replace(replace(replace(replace(replace(ifnull(json_extract(new.`properties`, '$.phone'), ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') || ' ' || ifnull(json_extract(new.`properties`, '$.company'), '')
    WHERE new.`archived` = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_search_delete` AFTER DELETE ON `crm_objects`
WHEN old.`object_type` = 'contacts'
BEGIN
  DELETE FROM `contact_search` WHERE `rowid` = old.`id`;
END;
--> statement-breakpoint
INSERT INTO `contact_search` (`rowid`, `portal`, `terms`) SELECT `id`, 'p' || `portal_id`,
  ifnull(json_extract(`properties`, '$.email'), '') || ' ' || ifnull(json_extract(`properties`, '$.firstname'), '') || ' ' || ifnull(json_extract(`properties`, '$.lastname'), '') || ' ' || ifnull(json_extract(`properties`, '$.phone'), '') || ' ' || replace(replace(replace(replace(replace(ifnull(json_extract(`properties`, '$.phone'), ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') || ' ' || ifnull(json_extract(`properties`, '$.company'), '')
  FROM `crm_objects` WHERE `object_type` = 'contacts' AND `archived` = 0;
