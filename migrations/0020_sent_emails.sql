CREATE TABLE `sent_emails` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`token_user_name` text,
	`from_address` text,
	`to_addresses` text NOT NULL,
	`cc_addresses` text NOT NULL,
	`bcc_addresses` text NOT NULL,
	`subject` text,
	`text_body` text,
	`html_body` text,
	`email_id` integer,
	`extra` text,
	`status` text NOT NULL,
	`send_result` text,
	`status_detail` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sent_emails_portal` ON `sent_emails` (`portal_id`,`id`);--> statement-breakpoint
-- hand-written: the fence triggers of the account table sent_emails (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `sent_emails_fence_insert` BEFORE INSERT ON `sent_emails` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `sent_emails_fence_update` BEFORE UPDATE ON `sent_emails` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `sent_emails_fence_delete` BEFORE DELETE ON `sent_emails` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: sent_emails ids stay in this database's id range, as every id table's (migrations/0010_id_sequences.sql);
-- npm run migrate and the test setup seed its counter after this migration.
CREATE TRIGGER `sent_emails_id_range` AFTER INSERT ON `sent_emails` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'sent_emails') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'sent_emails' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'sent_emails' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
