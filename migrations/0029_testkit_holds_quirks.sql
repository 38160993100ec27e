CREATE TABLE `account_quirks` (
	`portal_id` integer PRIMARY KEY NOT NULL,
	`search_lag_ms` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `webhook_holds` (
	`app_id` integer PRIMARY KEY NOT NULL,
	`held_at` integer NOT NULL
);
