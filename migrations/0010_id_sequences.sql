CREATE TABLE `id_sequences` (
	`name` text PRIMARY KEY NOT NULL,
	`base` integer NOT NULL,
	`seq` integer NOT NULL
);

--> statement-breakpoint
-- hand-written: every insert into an id table (src/db/id-ranges.ts ID_TABLES) must land in this database's id range
-- [base + 1, base + 10^11) unless the mover is copying the account in (its fence unlocked); id_sequences.seq
-- follows the largest id handed out within the range. A database without id_sequences rows (not yet seeded by
-- npm run migrate) is not checked.
CREATE TRIGGER `crm_objects_id_range` AFTER INSERT ON `crm_objects` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'crm_objects' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'crm_objects' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
CREATE TRIGGER `blogs_id_range` AFTER INSERT ON `blogs` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'blogs' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'blogs' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
CREATE TRIGGER `blog_authors_id_range` AFTER INSERT ON `blog_authors` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'blog_authors' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'blog_authors' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
CREATE TRIGGER `blog_topics_id_range` AFTER INSERT ON `blog_topics` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'blog_topics' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'blog_topics' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
CREATE TRIGGER `blog_posts_id_range` AFTER INSERT ON `blog_posts` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'blog_posts' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'blog_posts' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
CREATE TRIGGER `smtp_tokens_id_range` AFTER INSERT ON `smtp_tokens` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'smtp_tokens' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'smtp_tokens' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
CREATE TRIGGER `ecomm_links_id_range` AFTER INSERT ON `ecomm_links` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'ecomm_links' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'ecomm_links' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
CREATE TRIGGER `ecomm_imports_id_range` AFTER INSERT ON `ecomm_imports` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'ecomm_imports' AND (NEW.id <= s.base OR NEW.id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.id WHERE name = 'ecomm_imports' AND NEW.id > seq AND NEW.id < base + 100000000000; END;
--> statement-breakpoint
CREATE TRIGGER `timeline_events_id_range` AFTER INSERT ON `timeline_events` BEGIN SELECT RAISE(ABORT, 'ID_OUT_OF_RANGE') WHERE EXISTS (SELECT 1 FROM id_sequences s WHERE s.name = 'timeline_events' AND (NEW.row_id <= s.base OR NEW.row_id >= s.base + 100000000000)) AND NOT EXISTS (SELECT 1 FROM account_fences WHERE portal_id = NEW.portal_id AND unlocked = 1); UPDATE id_sequences SET seq = NEW.row_id WHERE name = 'timeline_events' AND NEW.row_id > seq AND NEW.row_id < base + 100000000000; END;
