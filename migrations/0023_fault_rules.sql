CREATE TABLE `fault_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`position` integer NOT NULL,
	`method` text,
	`path` text,
	`credential` text,
	`status` integer,
	`policy_name` text,
	`probability` real,
	`seed` integer,
	`times_left` integer,
	`latency_ms` integer DEFAULT 0 NOT NULL,
	`calls` integer DEFAULT 0 NOT NULL,
	`faults` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fault_rules_portal` ON `fault_rules` (`portal_id`,`position`);