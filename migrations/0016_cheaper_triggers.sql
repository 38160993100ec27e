-- Cheaper trigger conditions (docs/scaling.md "Rows read"): same guarantees, fewer rows read per written row.
-- Fence on update: a row's account never changes in place, so one fence lookup (the new account's) is enough;
-- the old account's is read only when portal_id itself changes.
DROP TRIGGER `crm_objects_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `crm_objects_fence_update` BEFORE UPDATE ON `crm_objects` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `crm_associations_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `crm_associations_fence_update` BEFORE UPDATE ON `crm_associations` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `contact_merges_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `contact_merges_fence_update` BEFORE UPDATE ON `contact_merges` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `blogs_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `blogs_fence_update` BEFORE UPDATE ON `blogs` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `blog_authors_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `blog_authors_fence_update` BEFORE UPDATE ON `blog_authors` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `blog_topics_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `blog_topics_fence_update` BEFORE UPDATE ON `blog_topics` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `blog_posts_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `blog_posts_fence_update` BEFORE UPDATE ON `blog_posts` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `smtp_tokens_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `smtp_tokens_fence_update` BEFORE UPDATE ON `smtp_tokens` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `ecomm_stores_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_stores_fence_update` BEFORE UPDATE ON `ecomm_stores` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `ecomm_pipelines_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_pipelines_fence_update` BEFORE UPDATE ON `ecomm_pipelines` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `ecomm_pipeline_stages_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_pipeline_stages_fence_update` BEFORE UPDATE ON `ecomm_pipeline_stages` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `ecomm_links_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_links_fence_update` BEFORE UPDATE ON `ecomm_links` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `ecomm_sync_errors_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_sync_errors_fence_update` BEFORE UPDATE ON `ecomm_sync_errors` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `ecomm_imports_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_imports_fence_update` BEFORE UPDATE ON `ecomm_imports` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `ecomm_import_ends_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_import_ends_fence_update` BEFORE UPDATE ON `ecomm_import_ends` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `ecomm_pending_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_pending_fence_update` BEFORE UPDATE ON `ecomm_pending` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `timeline_events_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `timeline_events_fence_update` BEFORE UPDATE ON `timeline_events` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `timeline_utks_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `timeline_utks_fence_update` BEFORE UPDATE ON `timeline_utks` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `crm_properties_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `crm_properties_fence_update` BEFORE UPDATE ON `crm_properties` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
DROP TRIGGER `webhook_outbox_fence_update`;
--> statement-breakpoint
CREATE TRIGGER `webhook_outbox_fence_update` BEFORE UPDATE ON `webhook_outbox` WHEN EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 0) OR (OLD.portal_id IS NOT NEW.portal_id AND EXISTS (SELECT 1 FROM account_fences WHERE portal_id = OLD.portal_id AND unlocked = 0)) BEGIN SELECT RAISE(ABORT, 'ACCOUNT_FENCED'); END;
--> statement-breakpoint
-- Id ranges: the trigger's body (range check, counter update) runs only for an id above the counter or below the
-- range, found with one read of the counter. Bulk inserts reserve their ids first (the counter moves once per
-- statement, not once per row), so their rows skip the body; the counter itself refuses to leave the range.
DROP TRIGGER `crm_objects_id_range`;
--> statement-breakpoint
CREATE TRIGGER `crm_objects_id_range` AFTER INSERT ON `crm_objects` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'crm_objects') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'crm_objects' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'crm_objects' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
DROP TRIGGER `blogs_id_range`;
--> statement-breakpoint
CREATE TRIGGER `blogs_id_range` AFTER INSERT ON `blogs` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'blogs') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'blogs' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'blogs' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
DROP TRIGGER `blog_authors_id_range`;
--> statement-breakpoint
CREATE TRIGGER `blog_authors_id_range` AFTER INSERT ON `blog_authors` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'blog_authors') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'blog_authors' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'blog_authors' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
DROP TRIGGER `blog_topics_id_range`;
--> statement-breakpoint
CREATE TRIGGER `blog_topics_id_range` AFTER INSERT ON `blog_topics` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'blog_topics') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'blog_topics' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'blog_topics' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
DROP TRIGGER `blog_posts_id_range`;
--> statement-breakpoint
CREATE TRIGGER `blog_posts_id_range` AFTER INSERT ON `blog_posts` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'blog_posts') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'blog_posts' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'blog_posts' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
DROP TRIGGER `smtp_tokens_id_range`;
--> statement-breakpoint
CREATE TRIGGER `smtp_tokens_id_range` AFTER INSERT ON `smtp_tokens` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'smtp_tokens') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'smtp_tokens' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'smtp_tokens' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
DROP TRIGGER `ecomm_links_id_range`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_links_id_range` AFTER INSERT ON `ecomm_links` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'ecomm_links') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'ecomm_links' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'ecomm_links' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
DROP TRIGGER `ecomm_imports_id_range`;
--> statement-breakpoint
CREATE TRIGGER `ecomm_imports_id_range` AFTER INSERT ON `ecomm_imports` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'ecomm_imports') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'ecomm_imports' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'ecomm_imports' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
DROP TRIGGER `timeline_events_id_range`;
--> statement-breakpoint
CREATE TRIGGER `timeline_events_id_range` AFTER INSERT ON `timeline_events` WHEN (SELECT NEW.row_id > s.seq OR NEW.row_id <= s.base FROM id_sequences s WHERE s.name = 'timeline_events') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'timeline_events' AND (NEW.row_id <= s.base OR NEW.row_id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.row_id WHERE name = 'timeline_events' AND NEW.row_id > seq AND NEW.row_id < base + 100000000000; END;
--> statement-breakpoint
DROP TRIGGER `webhook_outbox_id_range`;
--> statement-breakpoint
CREATE TRIGGER `webhook_outbox_id_range` AFTER INSERT ON `webhook_outbox` WHEN (SELECT NEW.id > s.seq OR NEW.id <= s.base FROM id_sequences s WHERE s.name = 'webhook_outbox') BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'webhook_outbox' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'webhook_outbox' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
CREATE TRIGGER `id_sequences_in_range` BEFORE UPDATE OF `seq` ON `id_sequences` WHEN NEW.seq >= NEW.base + 100000000000 BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE'); END;
--> statement-breakpoint
-- The sync's direct write checks, inside its own transaction, that what it planned from still holds: a row
-- inserted here with ok = 0 fails the batch with SYNC_PLAN_STALE; ok = 1 is ignored (nothing is written).
CREATE TABLE `sync_plan_checks` (`ok` integer NOT NULL);
--> statement-breakpoint
CREATE TRIGGER `sync_plan_checks_pass` BEFORE INSERT ON `sync_plan_checks` WHEN NEW.ok BEGIN SELECT RAISE(IGNORE); END;
--> statement-breakpoint
CREATE TRIGGER `sync_plan_checks_fail` BEFORE INSERT ON `sync_plan_checks` WHEN NOT NEW.ok BEGIN SELECT RAISE(ABORT, 'SYNC_PLAN_STALE'); END;
