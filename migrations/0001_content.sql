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
CREATE INDEX `smtp_tokens_portal` ON `smtp_tokens` (`portal_id`,`deleted`,`id`);