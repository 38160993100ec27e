CREATE TABLE `list_memberships` (
	`portal_id` integer NOT NULL,
	`list_id` integer NOT NULL,
	`record_id` integer NOT NULL,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `list_id`, `record_id`)
);
--> statement-breakpoint
CREATE INDEX `list_memberships_record` ON `list_memberships` (`portal_id`,`record_id`);--> statement-breakpoint
CREATE TABLE `lists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`object_type` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`processing_type` text NOT NULL,
	`filter_branch` text,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`filters_updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lists_name` ON `lists` (`portal_id`,`name_key`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `lists_type` ON `lists` (`portal_id`,`object_type`,`processing_type`,`id`);--> statement-breakpoint
-- hand-written: the fence triggers of the account table lists (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `lists_fence_insert` BEFORE INSERT ON `lists` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `lists_fence_update` BEFORE UPDATE ON `lists` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `lists_fence_delete` BEFORE DELETE ON `lists` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: lists ids stay in this database's id range, as every id table's (migrations/0010_id_sequences.sql);
-- npm run migrate and the test setup seed its counter after this migration.
CREATE TRIGGER `lists_id_range` AFTER INSERT ON `lists` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'lists') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'lists' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'lists' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
-- hand-written: the fence triggers of the account table list_memberships (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `list_memberships_fence_insert` BEFORE INSERT ON `list_memberships` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `list_memberships_fence_update` BEFORE UPDATE ON `list_memberships` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `list_memberships_fence_delete` BEFORE DELETE ON `list_memberships` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: a record archived (deleted through any face, or merged away) or purged leaves the manual and snapshot lists in the same write.
CREATE TRIGGER `crm_objects_leave_lists_archived` AFTER UPDATE OF `archived` ON `crm_objects` WHEN NEW.archived = 1 AND OLD.archived = 0 BEGIN DELETE FROM list_memberships WHERE portal_id = NEW.portal_id AND record_id = NEW.id; END;
--> statement-breakpoint
CREATE TRIGGER `crm_objects_leave_lists_deleted` AFTER DELETE ON `crm_objects` BEGIN DELETE FROM list_memberships WHERE portal_id = OLD.portal_id AND record_id = OLD.id; END;
