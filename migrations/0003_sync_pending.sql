CREATE TABLE `ecomm_pending` (
	`portal_id` integer NOT NULL,
	`store_id` text NOT NULL,
	`object_type` text NOT NULL,
	`external_id` text NOT NULL,
	`queued_at` integer NOT NULL,
	PRIMARY KEY(`portal_id`, `store_id`, `object_type`, `external_id`)
);
