CREATE TABLE `card_types` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` integer NOT NULL,
	`title` text NOT NULL,
	`base_uris` text NOT NULL,
	`data_fetch_uri` text NOT NULL,
	`property_definitions` text NOT NULL,
	`object_types` text NOT NULL,
	`object_type_properties` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `card_types_app` ON `card_types` (`app_id`,`id`);