/** Scheduled publishing by the cron's maintenance job: bounded, idempotent, only due scheduled posts. */
import { describe, expect, it } from "vitest";
import { maintenanceJobs } from "../../src/services/maintenance/jobs";
import { publishDuePosts } from "../../src/services/blog/posts";
import { call, tenant } from "../helpers/api";
import { createPost, page, publish, V2 } from "./helpers";
import { accountDb } from "../helpers/shards";
import { tick } from "../helpers/maintenance";

/** A cron tick at `scheduledTime` and the maintenance jobs it enqueues, run by the maintenance queue. */
const runScheduled = (scheduledTime: number) => tick(scheduledTime);

const getPost = async (token: string, id: number) => (await call("GET", `${V2}/blog-posts/${id}`, { token })).json;

describe("publish-scheduled-posts cron", () => {
  it("is registered as a maintenance job", () => {
    expect(maintenanceJobs["publish-scheduled-posts"]).toBeTypeOf("function");
  });

  it("publishes a scheduled post once its publish_date has come, and not before", async () => {
    const t = await tenant();
    const due = Date.now() + 60 * 60_000;
    const post = await createPost(t, { publish_date: due });
    await publish(t, post.id);
    await runScheduled(due - 1);
    expect((await getPost(t.oauth, post.id)).state).toBe("SCHEDULED");
    expect((await page(post.url)).status).toBe(404);

    await runScheduled(due);
    const after = await getPost(t.oauth, post.id);
    expect(after).toMatchObject({ state: "PUBLISHED", is_draft: false, published_at: due, publish_date: due, published_url: post.url });
    expect((await page(post.url)).status).toBe(200);

    // A later tick changes nothing (idempotent).
    await runScheduled(due + 60_000);
    expect(await getPost(t.oauth, post.id)).toEqual(after);
  });

  it("does not publish cancelled or deleted posts", async () => {
    const t = await tenant();
    const due = Date.now() + 2 * 60 * 60_000;
    const cancelled = await createPost(t, { publish_date: due });
    const deleted = await createPost(t, { publish_date: due });
    await publish(t, cancelled.id);
    await publish(t, deleted.id);
    await publish(t, cancelled.id, "cancel-publish");
    await call("DELETE", `${V2}/blog-posts/${deleted.id}`, { token: t.oauth });
    await runScheduled(due + 1);
    expect((await getPost(t.oauth, cancelled.id)).state).toBe("DRAFT");
    expect((await getPost(t.oauth, deleted.id)).state).toBe("SCHEDULED");
    expect((await page(deleted.url)).status).toBe(404);
  });

  it("does bounded work per run, oldest due first, until nothing is left", async () => {
    const t = await tenant();
    const base = Date.now() + 3 * 60 * 60_000;
    const posts = [];
    for (let i = 0; i < 3; i++) {
      const p = await createPost(t, { publish_date: base + i });
      await publish(t, p.id);
      posts.push(p);
    }
    const db = await accountDb(t.portalId);
    const at = base + 10;
    const runs: number[] = [];
    for (let n = await publishDuePosts(db, at, 2); ; n = await publishDuePosts(db, at, 2)) {
      runs.push(n);
      expect(n).toBeLessThanOrEqual(2);
      if (n === 0) break;
      if (runs.length === 1) {
        // The first run took the two oldest of ours at most; the newest waits for the next run.
        expect((await getPost(t.oauth, posts[2].id)).state).toBe("SCHEDULED");
      }
    }
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const p of posts) expect((await getPost(t.oauth, p.id)).state).toBe("PUBLISHED");
  });
});
