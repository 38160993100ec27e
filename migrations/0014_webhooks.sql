CREATE TABLE `webhook_attempts` (
	`delivery_id` integer NOT NULL,
	`attempt_number` integer NOT NULL,
	`status_code` integer,
	`duration_ms` integer NOT NULL,
	`error` text,
	`at` integer NOT NULL,
	PRIMARY KEY(`delivery_id`, `attempt_number`)
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` integer NOT NULL,
	`events` text NOT NULL,
	`event_count` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_app` ON `webhook_deliveries` (`app_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_inflight` (
	`app_id` integer NOT NULL,
	`lease_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`app_id`, `lease_id`)
);
--> statement-breakpoint
CREATE TABLE `webhook_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`app_id` integer NOT NULL,
	`subscription_id` integer NOT NULL,
	`subscription_type` text NOT NULL,
	`object_id` integer NOT NULL,
	`occurred_at` integer NOT NULL,
	`change_source` text NOT NULL,
	`extra` text,
	`claimed_at` integer
);
--> statement-breakpoint
CREATE INDEX `webhook_outbox_claim` ON `webhook_outbox` (`claimed_at`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_settings` (
	`app_id` integer PRIMARY KEY NOT NULL,
	`target_url` text NOT NULL,
	`max_concurrent_requests` integer NOT NULL,
	`period` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` integer NOT NULL,
	`event_type` text NOT NULL,
	`property_name` text,
	`active` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_app` ON `webhook_subscriptions` (`app_id`,`active`);
--> statement-breakpoint
-- hand-written: the fence triggers of the account table webhook_outbox (as migrations/0008_fences.sql).
CREATE TRIGGER `webhook_outbox_fence_insert` BEFORE INSERT ON `webhook_outbox` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_outbox_fence_update` BEFORE UPDATE ON `webhook_outbox` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) OR EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_outbox_fence_delete` BEFORE DELETE ON `webhook_outbox` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: webhook_outbox ids (the events' eventId) stay in this database's id range, as every id table's
-- (migrations/0010_id_sequences.sql); npm run migrate and the test setup seed its counter after this migration.
CREATE TRIGGER `webhook_outbox_id_range` AFTER INSERT ON `webhook_outbox` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'webhook_outbox' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'webhook_outbox' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
