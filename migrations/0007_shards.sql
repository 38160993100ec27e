CREATE TABLE `account_fences` (
	`portal_id` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`unlocked` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `account_moves` (
	`portal_id` integer PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`target` text NOT NULL,
	`phase` text NOT NULL,
	`copied` text DEFAULT '{}' NOT NULL,
	`error` text,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `accounts` ADD `shard` text;--> statement-breakpoint
CREATE INDEX `accounts_shard` ON `accounts` (`shard`,`portal_id`);