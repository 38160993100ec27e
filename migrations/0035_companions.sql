CREATE TABLE `account_companions` (
	`portal_id` integer PRIMARY KEY NOT NULL,
	`shard` text NOT NULL,
	`created_at` integer NOT NULL,
	`unlocked` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE `account_moves` ADD `kind` text DEFAULT 'home' NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `companion` text;--> statement-breakpoint
-- Hand-written (drizzle-kit cannot express triggers), docs/explanation/scaling.md "Accounts larger than one
-- database": on an account's home shard, a row of account_companions says its companion tables live on another
-- shard; every write of the account's rows of those tables is refused there (ACCOUNT_FENCED → 503, caches
-- forgotten, the retry finds the companion), unless the mover's own batch unlocked the row.
CREATE TRIGGER `timeline_events_companion_insert` BEFORE INSERT ON `timeline_events` WHEN EXISTS (SELECT 1 FROM account_companions WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `timeline_events_companion_update` BEFORE UPDATE ON `timeline_events` WHEN EXISTS (SELECT 1 FROM account_companions WHERE portal_id = OLD.portal_id AND unlocked = 0) OR EXISTS (SELECT 1 FROM account_companions WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `timeline_events_companion_delete` BEFORE DELETE ON `timeline_events` WHEN EXISTS (SELECT 1 FROM account_companions WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
