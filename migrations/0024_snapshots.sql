CREATE TABLE `snapshot_rows` (
	`portal_id` integer NOT NULL,
	`snapshot` text NOT NULL,
	`table_name` text NOT NULL,
	`row` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `snapshot_rows_table` ON `snapshot_rows` (`portal_id`,`snapshot`,`table_name`);--> statement-breakpoint
CREATE TABLE `snapshots` (
	`portal_id` integer NOT NULL,
	`name` text NOT NULL,
	`counts` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `name`)
);
--> statement-breakpoint
ALTER TABLE `accounts` ADD `data_reset_at` integer;--> statement-breakpoint
-- hand-written: the fence triggers of the account table snapshots (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `snapshots_fence_insert` BEFORE INSERT ON `snapshots` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `snapshots_fence_update` BEFORE UPDATE ON `snapshots` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `snapshots_fence_delete` BEFORE DELETE ON `snapshots` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: the fence triggers of the account table snapshot_rows (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `snapshot_rows_fence_insert` BEFORE INSERT ON `snapshot_rows` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `snapshot_rows_fence_update` BEFORE UPDATE ON `snapshot_rows` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `snapshot_rows_fence_delete` BEFORE DELETE ON `snapshot_rows` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
