/** @module Cron job: publishes scheduled blog posts whose publish_date (their scheduled publish time) has come. */
import type { Db } from "../db/client";
import { publishDuePosts } from "../services/blog/posts";

/** Bounded per run and shard (oldest due first); whatever is left is picked up on the next tick. */
export const PUBLISH_BATCH = 200;

export const publishScheduledPosts = (db: Db, now: number) => publishDuePosts(db, now, PUBLISH_BATCH);
