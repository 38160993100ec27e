/**
 * The account's clock: a test moves one account's time forward, and the service runs that account's work
 * that has come due (scheduled blog publishing, checkout abandonment, webhook retries) as if the time had
 * passed. Other accounts keep the real time.
 */
import { describe, it } from "vitest";
import { admin, testAccount } from "./kit";

const HOUR = 3_600;

describe("the account's clock", () => {
  it("starts at the real time", async ({ expect }) => {
    const t = await testAccount();
    const c = await t.clock();
    expect(c.offsetSeconds).toBe(0);
    expect(Math.abs(Date.parse(c.now) - Date.now())).toBeLessThan(60_000);
  });

  it("moves forward by the seconds asked for", async ({ expect }) => {
    const t = await testAccount();
    const c = await t.advance(2 * HOUR);
    expect(c.offsetSeconds).toBeGreaterThanOrEqual(2 * HOUR);
    expect(Date.parse(c.now) - Date.now()).toBeGreaterThan(2 * HOUR * 1000 - 60_000);
    expect((await t.clock()).offsetSeconds).toBe(c.offsetSeconds);
  });

  it("is set to a time given, and back to the real time by a DELETE", async ({ expect }) => {
    const t = await testAccount();
    const later = new Date(Date.now() + 7 * 24 * HOUR * 1000).toISOString();
    const c = await admin<{ now: string; offsetSeconds: number }>("POST", `/accounts/${t.portalId}/clock`, { now: later });
    expect(Math.abs(c.offsetSeconds - 7 * 24 * HOUR)).toBeLessThan(60);
    await admin("DELETE", `/accounts/${t.portalId}/clock`);
    expect((await t.clock()).offsetSeconds).toBe(0);
  });

  it("is the account's own: another account keeps the real time", async ({ expect }) => {
    const [a, b] = await Promise.all([testAccount(), testAccount()]);
    await a.advance(HOUR);
    expect((await b.clock()).offsetSeconds).toBe(0);
  });

  it("publishes a post scheduled an hour ahead once the clock passes its date, and not before", async ({ expect }) => {
    const t = await testAccount();
    const res = await t.call("POST", "/cms/v3/blogs/posts", { name: "Spring sale", slug: `spring-sale-${t.portalId}` });
    expect(res.status).toBe(201);
    const post = (await res.json()) as { id: string };
    const publishDate = new Date(Date.now() + HOUR * 1000).toISOString();
    expect((await t.call("POST", "/cms/v3/blogs/posts/schedule", { id: post.id, publishDate })).status).toBe(204);
    const state = async () => ((await (await t.call("GET", `/cms/v3/blogs/posts/${post.id}`)).json()) as { currentState?: string; state?: string });
    await t.advance(HOUR / 2);
    expect((await state()).state).not.toBe("PUBLISHED");
    await t.advance(HOUR);
    expect((await state()).state).toBe("PUBLISHED");
  });
});
