import { describe, expect, it } from "vitest";
import { makeDb } from "../../src/db/client";
import { rowReader } from "../../src/db/raw-rows";
import { blogPosts } from "../../src/db/tables/content";
import { call, tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";

describe("rowReader", () => {
  it("maps a row read as an array and a JSON object exactly as drizzle maps its own select (booleans, JSON, nulls)", async () => {
    const t = await tenant();
    const created = await call("POST", "/content/api/v2/blog-posts", {
      token: t.pat,
      body: { name: "Raw", keywords: ["k"], widgets: { w: { body: {} } }, use_featured_image: true },
    });
    expect(created.status, created.text).toBe(201);
    const d1 = await accountD1(t.portalId);
    const viaDrizzle = await makeDb(d1).select().from(blogPosts).all();
    const reader = rowReader(blogPosts);
    // Behind two other columns, as a read with more than one table's columns has them.
    const arrays = await d1.prepare(`select 1, 2, ${reader.columnList("p")} from blog_posts p where p.portal_id = ?`).bind(t.portalId).raw();
    expect(arrays.map((r) => reader.fromArray(r, 2))).toEqual(viaDrizzle.filter((r) => r.portalId === t.portalId));
    expect(reader.width).toBe(Object.keys(viaDrizzle[0]!).length);
    const json = (await d1.prepare(`select ${reader.jsonObject("p")} as j from blog_posts p where p.portal_id = ?`).bind(t.portalId).all<{ j: string }>()).results;
    expect(json.map((r) => reader.fromJson(JSON.parse(r.j) as Record<string, unknown>))).toEqual(viaDrizzle.filter((r) => r.portalId === t.portalId));
    expect(viaDrizzle.find((r) => r.portalId === t.portalId)).toMatchObject({ useFeaturedImage: true, keywords: [{ keyword: "k" }], draft: null });
  });
});
