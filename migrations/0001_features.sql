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
CREATE INDEX `card_types_app` ON `card_types` (`app_id`,`id`);--> statement-breakpoint
CREATE TABLE `blog_authors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`full_name` text NOT NULL,
	`email` text DEFAULT '' NOT NULL,
	`bio` text DEFAULT '' NOT NULL,
	`website` text DEFAULT '' NOT NULL,
	`twitter` text DEFAULT '' NOT NULL,
	`facebook` text DEFAULT '' NOT NULL,
	`linkedin` text DEFAULT '' NOT NULL,
	`avatar` text DEFAULT '' NOT NULL,
	`slug` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `blog_authors_portal` ON `blog_authors` (`portal_id`,`id`);--> statement-breakpoint
CREATE TABLE `blog_posts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`content_group_id` integer NOT NULL,
	`blog_author_id` integer,
	`author_user_id` integer DEFAULT 0 NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`html_title` text NOT NULL,
	`post_body` text DEFAULT '' NOT NULL,
	`post_summary` text DEFAULT '' NOT NULL,
	`meta_description` text DEFAULT '' NOT NULL,
	`head_html` text DEFAULT '' NOT NULL,
	`footer_html` text DEFAULT '' NOT NULL,
	`featured_image` text DEFAULT '' NOT NULL,
	`use_featured_image` integer DEFAULT false NOT NULL,
	`campaign` text DEFAULT '' NOT NULL,
	`campaign_name` text,
	`keywords` text DEFAULT '[]' NOT NULL,
	`topic_ids` text DEFAULT '[]' NOT NULL,
	`widgets` text DEFAULT '{}' NOT NULL,
	`widget_containers` text DEFAULT '{}' NOT NULL,
	`publish_date` integer NOT NULL,
	`publish_immediately` integer DEFAULT false NOT NULL,
	`state` text DEFAULT 'DRAFT' NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`preview_key` text NOT NULL,
	`published_at` integer DEFAULT 0 NOT NULL,
	`unpublished_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `blog_posts_slug` ON `blog_posts` (`portal_id`,`slug`) WHERE "blog_posts"."deleted_at" = 0;--> statement-breakpoint
CREATE INDEX `blog_posts_list` ON `blog_posts` (`portal_id`,`deleted_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `blog_posts_due` ON `blog_posts` (`publish_date`) WHERE "blog_posts"."state" = 'SCHEDULED' and "blog_posts"."deleted_at" = 0;--> statement-breakpoint
CREATE TABLE `blog_topics` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `blog_topics_portal` ON `blog_topics` (`portal_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `blog_topics_slug` ON `blog_topics` (`portal_id`,`slug`) WHERE "blog_topics"."deleted_at" = 0;--> statement-breakpoint
CREATE TABLE `blogs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`html_title` text DEFAULT '' NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `blogs_portal` ON `blogs` (`portal_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `blogs_one_default` ON `blogs` (`portal_id`) WHERE "blogs"."is_default" = 1;--> statement-breakpoint
CREATE TABLE `smtp_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`user_name` text NOT NULL,
	`password_hash` text,
	`email_campaign_id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`created_by` text NOT NULL,
	`campaign_name` text NOT NULL,
	`create_contact` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`deleted` integer DEFAULT false NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `smtp_tokens_user_name_unique` ON `smtp_tokens` (`user_name`);--> statement-breakpoint
CREATE INDEX `smtp_tokens_portal` ON `smtp_tokens` (`portal_id`,`deleted`,`id`);--> statement-breakpoint
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
CREATE INDEX `ecomm_sync_errors_app` ON `ecomm_sync_errors` (`app_id`,`errored_at`);--> statement-breakpoint
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
