CREATE TABLE `crm_associations` (
	`portal_id` integer NOT NULL,
	`from_id` integer NOT NULL,
	`to_type` text NOT NULL,
	`to_id` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `from_id`, `to_type`, `to_id`)
);
--> statement-breakpoint
CREATE TABLE `crm_objects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`object_type` text NOT NULL,
	`properties` text NOT NULL,
	`email` text,
	`guid` text NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `crm_objects_list` ON `crm_objects` (`portal_id`,`object_type`,`archived`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `crm_objects_contact_email` ON `crm_objects` (`portal_id`,`email`) WHERE "crm_objects"."object_type" = 'contacts' and "crm_objects"."archived" = 0 and "crm_objects"."email" is not null;--> statement-breakpoint
CREATE TABLE `accounts` (
	`portal_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`addons` text DEFAULT '[]' NOT NULL,
	`rate_limit` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `apps` (
	`app_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret` text NOT NULL,
	`redirect_uris` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `apps_client_id_unique` ON `apps` (`client_id`);--> statement-breakpoint
CREATE TABLE `auth_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`app_id` integer NOT NULL,
	`portal_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`redirect_uri` text NOT NULL,
	`scopes` text NOT NULL,
	`code_challenge` text,
	`code_challenge_method` text,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE TABLE `credentials` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`portal_id` integer,
	`app_id` integer,
	`install_id` integer,
	`private_app_id` integer,
	`user_id` integer,
	`scopes` text DEFAULT '[]' NOT NULL,
	`family_id` text,
	`expires_at` integer,
	`revoked_at` integer,
	`rotated_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `credentials_install` ON `credentials` (`install_id`);--> statement-breakpoint
CREATE INDEX `credentials_family` ON `credentials` (`family_id`);--> statement-breakpoint
CREATE INDEX `credentials_app_kind` ON `credentials` (`app_id`,`kind`);--> statement-breakpoint
CREATE TABLE `installs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`scopes` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`portal_id`) REFERENCES `accounts`(`portal_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`app_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `installs_portal_app` ON `installs` (`portal_id`,`app_id`);--> statement-breakpoint
CREATE INDEX `installs_app` ON `installs` (`app_id`);--> statement-breakpoint
CREATE TABLE `private_apps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`name` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`portal_id`) REFERENCES `accounts`(`portal_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `private_apps_portal` ON `private_apps` (`portal_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`portal_id` integer NOT NULL,
	`csrf_token` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_user` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`user_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`email` text NOT NULL,
	`password_hash` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`portal_id`) REFERENCES `accounts`(`portal_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_portal_email` ON `users` (`portal_id`,`email`);