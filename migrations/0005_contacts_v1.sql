CREATE TABLE `contact_merges` (
	`portal_id` integer NOT NULL,
	`merged_vid` integer NOT NULL,
	`canonical_vid` integer NOT NULL,
	`merged_email` text,
	`merged_guid` text NOT NULL,
	`merged_created_at` integer NOT NULL,
	`survivor_email` text,
	`first_name` text,
	`properties_moved` integer NOT NULL,
	`merged_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `merged_vid`)
);
--> statement-breakpoint
CREATE INDEX `contact_merges_canonical` ON `contact_merges` (`portal_id`,`canonical_vid`);--> statement-breakpoint
CREATE INDEX `contact_merges_email` ON `contact_merges` (`portal_id`,`merged_email`);--> statement-breakpoint
ALTER TABLE `crm_objects` ADD `merged_into` integer;--> statement-breakpoint
CREATE INDEX `crm_objects_recent_updated` ON `crm_objects` (`portal_id`,`object_type`,`archived`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `crm_objects_recent_created` ON `crm_objects` (`portal_id`,`object_type`,`archived`,`created_at`,`id`);