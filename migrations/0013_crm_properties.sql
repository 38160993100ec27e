CREATE TABLE `crm_properties` (
	`portal_id` integer NOT NULL,
	`object_type` text NOT NULL,
	`name` text NOT NULL,
	`label` text NOT NULL,
	`type` text NOT NULL,
	`field_type` text NOT NULL,
	`group_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`options` text NOT NULL,
	`display_order` integer DEFAULT -1 NOT NULL,
	`hidden` integer DEFAULT false NOT NULL,
	`form_field` integer DEFAULT false NOT NULL,
	`has_unique_value` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `object_type`, `name`)
);
--> statement-breakpoint
-- hand-written: the fence triggers of every account table (as in 0008_fences.sql), for crm_properties.
CREATE TRIGGER `crm_properties_fence_insert` BEFORE INSERT ON `crm_properties` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `crm_properties_fence_update` BEFORE UPDATE ON `crm_properties` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) OR EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `crm_properties_fence_delete` BEFORE DELETE ON `crm_properties` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
