CREATE TABLE `list_folders` (
	`portal_id` integer NOT NULL,
	`id` integer NOT NULL,
	`parent_id` integer NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `list_folders_parent` ON `list_folders` (`portal_id`,`parent_id`);--> statement-breakpoint
ALTER TABLE `lists` ADD `folder_id` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- hand-written: the fence triggers of the account table list_folders (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `list_folders_fence_insert` BEFORE INSERT ON `list_folders` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `list_folders_fence_update` BEFORE UPDATE ON `list_folders` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `list_folders_fence_delete` BEFORE DELETE ON `list_folders` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
