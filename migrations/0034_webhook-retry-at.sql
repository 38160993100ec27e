ALTER TABLE `webhook_deliveries` ADD `retry_at` integer;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_retry_at` ON `webhook_deliveries` (`retry_at`) WHERE retry_at is not null;