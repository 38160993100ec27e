CREATE TABLE `timeline_event_properties` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_type_id` integer NOT NULL,
	`name` text NOT NULL,
	`label` text NOT NULL,
	`property_type` text NOT NULL,
	`options` text DEFAULT '[]' NOT NULL,
	`object_property` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `timeline_event_properties_name` ON `timeline_event_properties` (`event_type_id`,`name`);--> statement-breakpoint
CREATE TABLE `timeline_event_types` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` integer NOT NULL,
	`name` text NOT NULL,
	`header_template` text,
	`detail_template` text,
	`object_type` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `timeline_event_types_app` ON `timeline_event_types` (`app_id`,`id`);--> statement-breakpoint
CREATE TABLE `timeline_events` (
	`row_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`event_type_id` integer NOT NULL,
	`event_id` text NOT NULL,
	`object_type` text NOT NULL,
	`object_id` integer,
	`email` text,
	`utk` text,
	`timestamp` integer NOT NULL,
	`properties` text NOT NULL,
	`extra_data` text,
	`timeline_iframe` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `timeline_events_key` ON `timeline_events` (`portal_id`,`event_type_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `timeline_events_record` ON `timeline_events` (`portal_id`,`object_type`,`object_id`,`timestamp`,`row_id`);--> statement-breakpoint
CREATE INDEX `timeline_events_pending` ON `timeline_events` (`portal_id`,`utk`) WHERE "timeline_events"."object_id" is null;--> statement-breakpoint
CREATE INDEX `timeline_events_type` ON `timeline_events` (`event_type_id`);--> statement-breakpoint
CREATE TABLE `timeline_utks` (
	`portal_id` integer NOT NULL,
	`utk` text NOT NULL,
	`contact_id` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `utk`)
);
