ALTER TABLE `webhook_attempts` ADD `portal_id` integer;--> statement-breakpoint
CREATE INDEX `webhook_attempts_portal` ON `webhook_attempts` (`portal_id`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `portal_id` integer;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_app_created` ON `webhook_deliveries` (`app_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_portal` ON `webhook_deliveries` (`portal_id`,`id`);--> statement-breakpoint
-- Hand-written (drizzle-kit cannot express triggers), docs/explanation/scaling.md "Accounts larger than one
-- database": the delivery log is an account table, stored with the account whose events a delivery carries. Rows
-- written in the control plane before (portal_id null) stay there and match no fence.
-- hand-written: the fence triggers of the account table webhook_deliveries (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_fence_insert` BEFORE INSERT ON `webhook_deliveries` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_fence_update` BEFORE UPDATE ON `webhook_deliveries` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_fence_delete` BEFORE DELETE ON `webhook_deliveries` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: a companion table (as migrations/0035_companions.sql): on the home shard of an account whose companion tables live elsewhere, its rows of webhook_deliveries are refused.
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_companion_insert` BEFORE INSERT ON `webhook_deliveries` WHEN EXISTS (SELECT 1 FROM account_companions WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_companion_update` BEFORE UPDATE ON `webhook_deliveries` WHEN EXISTS (SELECT 1 FROM account_companions WHERE portal_id = OLD.portal_id AND unlocked = 0) OR EXISTS (SELECT 1 FROM account_companions WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_companion_delete` BEFORE DELETE ON `webhook_deliveries` WHEN EXISTS (SELECT 1 FROM account_companions WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: the fence triggers of the account table webhook_attempts (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
--> statement-breakpoint
CREATE TRIGGER `webhook_attempts_fence_insert` BEFORE INSERT ON `webhook_attempts` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_attempts_fence_update` BEFORE UPDATE ON `webhook_attempts` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_attempts_fence_delete` BEFORE DELETE ON `webhook_attempts` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: a companion table (as migrations/0035_companions.sql): on the home shard of an account whose companion tables live elsewhere, its rows of webhook_attempts are refused.
--> statement-breakpoint
CREATE TRIGGER `webhook_attempts_companion_insert` BEFORE INSERT ON `webhook_attempts` WHEN EXISTS (SELECT 1 FROM account_companions WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_attempts_companion_update` BEFORE UPDATE ON `webhook_attempts` WHEN EXISTS (SELECT 1 FROM account_companions WHERE portal_id = OLD.portal_id AND unlocked = 0) OR EXISTS (SELECT 1 FROM account_companions WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_attempts_companion_delete` BEFORE DELETE ON `webhook_attempts` WHEN EXISTS (SELECT 1 FROM account_companions WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: webhook_deliveries ids stay in this database's id range, as every id table's (migrations/0010_id_sequences.sql);
-- npm run migrate and the test setup seed its counter after this migration (in the control plane, after its older rows).
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_id_range` AFTER INSERT ON `webhook_deliveries` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'webhook_deliveries') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'webhook_deliveries' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'webhook_deliveries' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
