CREATE TABLE `crm_property_groups` (
	`portal_id` integer NOT NULL,
	`object_type` text NOT NULL,
	`name` text NOT NULL,
	`label` text NOT NULL,
	`display_order` integer DEFAULT -1 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `object_type`, `name`)
);
--> statement-breakpoint
-- hand-written: the fence triggers of the account table crm_property_groups (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `crm_property_groups_fence_insert` BEFORE INSERT ON `crm_property_groups` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `crm_property_groups_fence_update` BEFORE UPDATE ON `crm_property_groups` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `crm_property_groups_fence_delete` BEFORE DELETE ON `crm_property_groups` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
