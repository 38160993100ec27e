CREATE TABLE `extension_settings` (
	`app_id` integer NOT NULL,
	`kind` text NOT NULL,
	`document` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`app_id`, `kind`)
);
