CREATE TABLE `pipeline_audits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`object_type` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`stage_id` text,
	`action` text NOT NULL,
	`at` integer NOT NULL,
	`raw` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `pipeline_audits_key` ON `pipeline_audits` (`portal_id`,`object_type`,`pipeline_id`,`stage_id`,`id`);--> statement-breakpoint
CREATE TABLE `pipeline_stages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`object_type` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`stage_id` text NOT NULL,
	`label` text NOT NULL,
	`display_order` integer NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`archived_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pipeline_stages_key` ON `pipeline_stages` (`portal_id`,`object_type`,`stage_id`);--> statement-breakpoint
CREATE INDEX `pipeline_stages_pipeline` ON `pipeline_stages` (`portal_id`,`object_type`,`pipeline_id`);--> statement-breakpoint
CREATE TABLE `pipelines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`portal_id` integer NOT NULL,
	`object_type` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`label` text NOT NULL,
	`display_order` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`archived_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pipelines_key` ON `pipelines` (`portal_id`,`object_type`,`pipeline_id`);--> statement-breakpoint
-- hand-written: the fence triggers of the account table pipelines (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `pipelines_fence_insert` BEFORE INSERT ON `pipelines` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `pipelines_fence_update` BEFORE UPDATE ON `pipelines` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `pipelines_fence_delete` BEFORE DELETE ON `pipelines` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: pipelines ids stay in this database's id range, as every id table's (migrations/0010_id_sequences.sql);
-- npm run migrate and the test setup seed its counter after this migration.
CREATE TRIGGER `pipelines_id_range` AFTER INSERT ON `pipelines` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'pipelines') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'pipelines' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'pipelines' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
-- hand-written: the fence triggers of the account table pipeline_stages (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `pipeline_stages_fence_insert` BEFORE INSERT ON `pipeline_stages` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `pipeline_stages_fence_update` BEFORE UPDATE ON `pipeline_stages` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `pipeline_stages_fence_delete` BEFORE DELETE ON `pipeline_stages` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: pipeline_stages ids stay in this database's id range, as every id table's (migrations/0010_id_sequences.sql);
-- npm run migrate and the test setup seed its counter after this migration.
CREATE TRIGGER `pipeline_stages_id_range` AFTER INSERT ON `pipeline_stages` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'pipeline_stages') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'pipeline_stages' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'pipeline_stages' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
-- hand-written: the fence triggers of the account table pipeline_audits (as migrations/0008_fences.sql, in the form of 0016_cheaper_triggers.sql).
CREATE TRIGGER `pipeline_audits_fence_insert` BEFORE INSERT ON `pipeline_audits` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `pipeline_audits_fence_update` BEFORE UPDATE ON `pipeline_audits` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
CREATE TRIGGER `pipeline_audits_fence_delete` BEFORE DELETE ON `pipeline_audits` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- hand-written: pipeline_audits ids stay in this database's id range, as every id table's (migrations/0010_id_sequences.sql);
-- npm run migrate and the test setup seed its counter after this migration.
CREATE TRIGGER `pipeline_audits_id_range` AFTER INSERT ON `pipeline_audits` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'pipeline_audits') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'pipeline_audits' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'pipeline_audits' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
