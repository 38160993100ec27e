CREATE TABLE `ecomm_imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`store_id` text NOT NULL,
	`import_started_at` integer NOT NULL,
	`trigger` text NOT NULL,
	`outcome` text NOT NULL,
	`http_status` integer,
	`detail` text,
	`counts` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ecomm_imports_store` ON `ecomm_imports` (`portal_id`,`store_id`);--> statement-breakpoint
CREATE TABLE `ecomm_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`store_id` text NOT NULL,
	`object_type` text NOT NULL,
	`external_id` text NOT NULL,
	`service_id` integer,
	`changed_at` integer NOT NULL,
	`message_id` text NOT NULL,
	`deleted` integer DEFAULT false NOT NULL,
	`processed_at` integer,
	`stage` text,
	`stage_entered_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ecomm_links_key` ON `ecomm_links` (`portal_id`,`store_id`,`object_type`,`external_id`);--> statement-breakpoint
CREATE INDEX `ecomm_links_stage` ON `ecomm_links` (`stage`,`stage_entered_at`) WHERE "ecomm_links"."stage" is not null;--> statement-breakpoint
CREATE TABLE `ecomm_pipeline_stages` (
	`portal_id` integer NOT NULL,
	`stage_id` text NOT NULL,
	`label` text NOT NULL,
	`display_order` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `stage_id`)
);
--> statement-breakpoint
CREATE TABLE `ecomm_pipelines` (
	`portal_id` integer PRIMARY KEY NOT NULL,
	`pipeline_id` text NOT NULL,
	`label` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ecomm_settings` (
	`owner_kind` text NOT NULL,
	`owner_id` integer NOT NULL,
	`enabled` integer NOT NULL,
	`webhook_uri` text,
	`mappings` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`owner_kind`, `owner_id`)
);
--> statement-breakpoint
CREATE TABLE `ecomm_stores` (
	`portal_id` integer NOT NULL,
	`store_id` text NOT NULL,
	`label` text NOT NULL,
	`admin_uri` text,
	`app_id` integer,
	`generation` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `store_id`)
);
--> statement-breakpoint
CREATE INDEX `ecomm_stores_app` ON `ecomm_stores` (`app_id`,`portal_id`);--> statement-breakpoint
CREATE TABLE `ecomm_sync_errors` (
	`portal_id` integer NOT NULL,
	`store_id` text NOT NULL,
	`object_type` text NOT NULL,
	`external_id` text NOT NULL,
	`app_id` integer,
	`message_id` text NOT NULL,
	`changed_at` integer NOT NULL,
	`errored_at` integer NOT NULL,
	`type` text NOT NULL,
	`details` text NOT NULL,
	`status` text NOT NULL,
	PRIMARY KEY(`portal_id`, `store_id`, `object_type`, `external_id`)
);
--> statement-breakpoint
CREATE INDEX `ecomm_sync_errors_portal` ON `ecomm_sync_errors` (`portal_id`,`errored_at`);--> statement-breakpoint
CREATE INDEX `ecomm_sync_errors_app` ON `ecomm_sync_errors` (`app_id`,`errored_at`);