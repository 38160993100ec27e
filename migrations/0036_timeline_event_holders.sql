CREATE TABLE `timeline_event_holders` (
	`event_type_id` integer NOT NULL,
	`portal_id` integer NOT NULL,
	PRIMARY KEY(`event_type_id`, `portal_id`)
);
--> statement-breakpoint
CREATE INDEX `timeline_event_holders_portal` ON `timeline_event_holders` (`portal_id`);--> statement-breakpoint
-- The accounts already holding events of a type on this database (on the control plane: the accounts placed
-- before sharding).
INSERT OR IGNORE INTO `timeline_event_holders` (`event_type_id`, `portal_id`) SELECT DISTINCT `event_type_id`, `portal_id` FROM `timeline_events`;
