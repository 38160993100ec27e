DROP INDEX `crm_objects_recent_updated`;--> statement-breakpoint
DROP INDEX `crm_objects_recent_created`;--> statement-breakpoint
CREATE INDEX `crm_objects_recent_updated` ON `crm_objects` (`portal_id`,`updated_at`,`id`) WHERE "crm_objects"."object_type" = 'contacts' and "crm_objects"."archived" = 0;--> statement-breakpoint
CREATE INDEX `crm_objects_recent_created` ON `crm_objects` (`portal_id`,`created_at`,`id`) WHERE "crm_objects"."object_type" = 'contacts' and "crm_objects"."archived" = 0;