CREATE TABLE `shard_placement` (
	`shard` text PRIMARY KEY NOT NULL,
	`open` integer NOT NULL,
	`updated_at` integer NOT NULL
);
