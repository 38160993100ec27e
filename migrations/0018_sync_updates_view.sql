-- Custom SQL migration file, put your code below! --
-- hand-written:
-- The sync's updates of linked objects (services/ecomm/commit-direct.ts), many per statement: each row inserted
-- into this view moves one link's watermark forward (only when the message is newer than the link's) and, only
-- if it did, merges the message's properties into the link's record. The view holds nothing; its trigger does
-- per row what two single-row statements did, so a batch pays one statement per group of objects instead of two
-- per object. The fence triggers of both tables fire as for any update.
CREATE VIEW `sync_updates` (`link_id`, `changed_at`, `message_id`, `stage`, `now`, `service_id`, `patch`, `email_set`, `email`) AS SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `sync_updates_apply` INSTEAD OF INSERT ON `sync_updates` BEGIN
  UPDATE ecomm_links SET changed_at = NEW.changed_at, message_id = NEW.message_id, deleted = 0, processed_at = NEW.now,
    stage = coalesce(NEW.stage, stage),
    stage_entered_at = CASE WHEN NEW.stage IS NULL OR NEW.stage IS stage THEN stage_entered_at ELSE NEW.changed_at END,
    updated_at = NEW.now
  WHERE id = NEW.link_id AND (changed_at, message_id) < (NEW.changed_at, NEW.message_id);
  UPDATE crm_objects SET properties = json_patch(properties, NEW.patch), email = CASE WHEN NEW.email_set THEN NEW.email ELSE email END, updated_at = NEW.now
  WHERE id = NEW.service_id AND archived = 0 AND changes() = 1;
END;
