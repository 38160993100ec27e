CREATE TABLE `owners` (
	`owner_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`email` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`role_id` text,
	`primary_team_id` integer,
	`secondary_team_ids` text DEFAULT '[]' NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `owners_portal` ON `owners` (`portal_id`,`archived`,`owner_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `owners_user` ON `owners` (`user_id`);--> statement-breakpoint
CREATE TABLE `teams` (
	`team_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`name` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teams_portal_name` ON `teams` (`portal_id`,`name`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `time_zone` text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `company_currency` text DEFAULT 'USD' NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `additional_currencies` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `account_type` text DEFAULT 'STANDARD' NOT NULL;--> statement-breakpoint
-- hand-written: owner ids start above 100000000, apart from user ids. AUTOINCREMENT never hands out an id at or
-- below the largest one ever used, so a placeholder row at 100000000, deleted at once, moves the counter.
INSERT INTO `owners` (`owner_id`, `portal_id`, `user_id`, `email`) VALUES (100000000, 0, 0, '');--> statement-breakpoint
DELETE FROM `owners` WHERE `owner_id` = 100000000;--> statement-breakpoint
-- hand-written: every user made before owners existed becomes an owner of its account.
INSERT INTO `owners` (`portal_id`, `user_id`, `email`, `created_at`, `updated_at`) SELECT `portal_id`, `user_id`, `email`, `created_at`, `created_at` FROM `users` ORDER BY `user_id`;
