CREATE TABLE `crm_schemas` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`name` text NOT NULL,
	`singular` text NOT NULL,
	`plural` text NOT NULL,
	`description` text,
	`primary_display_property` text,
	`secondary_display_properties` text NOT NULL,
	`required_properties` text NOT NULL,
	`searchable_properties` text NOT NULL,
	`associations` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`archived_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crm_schemas_name` ON `crm_schemas` (`portal_id`,`name`);--> statement-breakpoint
-- hand-written: the fence triggers of the account table crm_schemas (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `crm_schemas_fence_insert` BEFORE INSERT ON `crm_schemas` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `crm_schemas_fence_update` BEFORE UPDATE ON `crm_schemas` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `crm_schemas_fence_delete` BEFORE DELETE ON `crm_schemas` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: crm_schemas ids stay in this database's id range, as every id table's (migrations/0010_id_sequences.sql);
-- npm run migrate and the test setup seed its counter after this migration.
CREATE TRIGGER `crm_schemas_id_range` AFTER INSERT ON `crm_schemas` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'crm_schemas') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'crm_schemas' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'crm_schemas' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
