CREATE TABLE `association_definitions` (
	`portal_id` integer NOT NULL,
	`type_id` integer NOT NULL,
	`from_type` text NOT NULL,
	`to_type` text NOT NULL,
	`name` text NOT NULL,
	`label` text NOT NULL,
	`inverse_type_id` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `type_id`)
);
--> statement-breakpoint
CREATE INDEX `association_definitions_pair` ON `association_definitions` (`portal_id`,`from_type`,`to_type`);--> statement-breakpoint
CREATE TABLE `association_limits` (
	`portal_id` integer NOT NULL,
	`from_type` text NOT NULL,
	`to_type` text NOT NULL,
	`type_id` integer NOT NULL,
	`max_to_object_ids` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `from_type`, `to_type`, `type_id`)
);
--> statement-breakpoint
CREATE TABLE `crm_association_types` (
	`portal_id` integer NOT NULL,
	`from_id` integer NOT NULL,
	`to_type` text NOT NULL,
	`to_id` integer NOT NULL,
	`type_id` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `from_id`, `to_type`, `to_id`, `type_id`)
);
--> statement-breakpoint
CREATE INDEX `crm_association_types_type` ON `crm_association_types` (`portal_id`,`type_id`);--> statement-breakpoint
-- hand-written: the fence triggers of the account table association_definitions (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `association_definitions_fence_insert` BEFORE INSERT ON `association_definitions` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `association_definitions_fence_update` BEFORE UPDATE ON `association_definitions` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `association_definitions_fence_delete` BEFORE DELETE ON `association_definitions` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: the fence triggers of the account table crm_association_types (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `crm_association_types_fence_insert` BEFORE INSERT ON `crm_association_types` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `crm_association_types_fence_update` BEFORE UPDATE ON `crm_association_types` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `crm_association_types_fence_delete` BEFORE DELETE ON `crm_association_types` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: the fence triggers of the account table association_limits (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `association_limits_fence_insert` BEFORE INSERT ON `association_limits` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `association_limits_fence_update` BEFORE UPDATE ON `association_limits` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `association_limits_fence_delete` BEFORE DELETE ON `association_limits` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: a pair's labels go with its association, whichever path deletes it (v3, v4, merges, the
-- ecommerce sync, purges), so no label outlives the association it qualifies.
CREATE TRIGGER `crm_associations_drop_types` AFTER DELETE ON `crm_associations` BEGIN DELETE FROM crm_association_types WHERE portal_id = OLD.portal_id AND from_id = OLD.from_id AND to_type = OLD.to_type AND to_id = OLD.to_id; END;
