/**
 * Replays every recorded blog post list request of hubspot-ruby-apptopia
 * (shared/reference/traffic/hubspot-ruby-apptopia/blog_posts_v2_list__*.json, read in place by ./recordings)
 * against a fresh account with a few seeded posts.
 *
 * What the recordings let us assert honestly:
 * - the status, always;
 * - a 400's message (the unknown sort field " created");
 * - for a recorded empty page (total_count 0, caused by an unknown state: TRUE, INVALID, false) the same empty
 *   envelope, and that the same query without its state does find the seeded posts, so the state is the cause;
 * - for any other 200 only the envelope (its keys and JSON types, limit, offset): the recorded objects and totals
 *   are the real portal's posts, which a fresh account does not have. Beyond that the test checks only that the
 *   seeded posts it returns obey the state and content_group_id filters.
 * The recorded `content_group_id` (351076997) is the real portal's blog; it is replaced by the seeded blog's id.
 * The camelCase `contentGroupId`/`orderBy` and `created__range`/`created_gt` some recordings send are not
 * parameters of the API and are replayed unchanged.
 */
import { describe, expect, it } from "vitest";
import { POST_STATES } from "../../src/db/tables/content";
import { call, expectError, tenant } from "../helpers/api";
import { createPost, expectSameShape, publish, V2 } from "../blog/helpers";
import { recordingsUnder, type TrafficRecord as Recording } from "./recordings";

const RECORDINGS = recordingsUnder("hubspot-ruby-apptopia/blog_posts_v2_list__");

/** A fresh account: two published posts and a draft in the default blog, a published post in another blog. */
async function seeded() {
  const t = await tenant();
  const published = [await createPost(t), await createPost(t)];
  for (const p of published) await publish(t, p.id);
  await createPost(t);
  const other = await call("POST", `${V2}/blogs`, { token: t.oauth, body: { name: "Other blog" } });
  expect(other.status, other.text).toBe(201);
  const elsewhere = await createPost(t, { content_group_id: other.json.id });
  await publish(t, elsewhere.id);
  return { t, blogId: published[0].content_group_id as number };
}

function replayQuery(rec: Recording, blogId: number, drop: string[] = []) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(rec.query)) {
    if (drop.includes(k)) continue;
    q.set(k, k === "content_group_id" ? String(blogId) : v);
  }
  return q;
}

describe("GET /content/api/v2/blog-posts: the hubspot-ruby-apptopia recordings", () => {
  it("finds the recordings beside the repository, the unknown-state ones among them", () => {
    const names = RECORDINGS.map(([name]) => name);
    expect(names.length).toBeGreaterThan(0);
    for (const n of [2, 3, 6, 7]) expect(names.some((name) => name.includes(`_filter_state__${n}_`))).toBe(true);
  });

  it.each(RECORDINGS)("replays %s", async (_name, rec) => {
    expect(rec.method).toBe("GET");
    expect(rec.path).toBe(`${V2}/blog-posts`);
    const recorded = rec.responseBody as Record<string, unknown>;
    const { t, blogId } = await seeded();
    const res = await call("GET", `${rec.path}?${replayQuery(rec, blogId)}`, { token: t.oauth });

    if (rec.status !== 200) {
      const err = expectError(res, rec.status, "VALIDATION_ERROR");
      expect(err.message).toContain(recorded.message);
      return;
    }

    expect(res.status, res.text).toBe(200);
    expectSameShape(res.json, recorded);
    expect(res.json.limit).toBe(recorded.limit);
    expect(res.json.offset).toBe(recorded.offset);
    expect(res.json.objects.length).toBeLessThanOrEqual(res.json.limit);
    expect(res.json.total_count).toBeGreaterThanOrEqual(res.json.objects.length);

    if (recorded.total_count === 0) {
      // Empty because of the filter: an unknown state.
      expect((POST_STATES as readonly string[]).includes(String(rec.query.state).toUpperCase())).toBe(false);
      expect(res.json).toEqual({ limit: recorded.limit, objects: [], offset: recorded.offset, total: 0, total_count: 0 });
      const withoutState = await call("GET", `${rec.path}?${replayQuery(rec, blogId, ["state"])}`, { token: t.oauth });
      expect(withoutState.status, withoutState.text).toBe(200);
      expect(withoutState.json.objects.length).toBeGreaterThan(0);
    } else {
      // The seed has posts every recorded filter matches; the ones it returns obey the filters this API knows.
      expect(res.json.objects.length).toBeGreaterThan(0);
      for (const o of res.json.objects as { state: string; content_group_id: number }[]) {
        if (rec.query.state !== undefined) expect(o.state).toBe(rec.query.state.toUpperCase());
        if (rec.query.content_group_id !== undefined) expect(o.content_group_id).toBe(blogId);
      }
    }
  });
});
