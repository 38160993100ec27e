ALTER TABLE `accounts` ADD `status` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `deletion` text;--> statement-breakpoint
ALTER TABLE `apps` ADD `previous_client_secret` text;--> statement-breakpoint
ALTER TABLE `apps` ADD `previous_secret_expires_at` integer;