CREATE TABLE `ecomm_import_ends` (
	`portal_id` integer NOT NULL,
	`store_id` text NOT NULL,
	`import_started_at` integer NOT NULL,
	`object_type` text NOT NULL,
	`page_count` integer NOT NULL,
	`item_count` integer NOT NULL,
	`ended_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `store_id`, `import_started_at`, `object_type`)
);
