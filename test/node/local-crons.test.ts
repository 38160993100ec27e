/**
 * The documented local cron trigger works (README, "The demo"): the Worker started by the
 * `wrangler dev` command, with Workers static assets in front of it, answers the trigger wrangler prints,
 * `GET /cdn-cgi/local/scheduled`, with 200, and the tick's maintenance jobs run through the local
 * maintenance queue within seconds; the older `/cdn-cgi/handler/scheduled` still works too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_TIMEOUT_MS, startWranglerDev, type WranglerDev } from "./wrangler-dev";

let dev: WranglerDev;

beforeAll(async () => {
  dev = await startWranglerDev();
}, START_TIMEOUT_MS);

afterAll(async () => {
  await dev?.stop();
});

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${dev.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith("{") ? JSON.parse(text) : null };
}

describe("crons under wrangler dev", () => {
  it("GET /cdn-cgi/local/scheduled runs the crons: a due scheduled blog post is published", async () => {
    const acct = await call("POST", "/admin/v1/accounts", dev.adminToken, { name: "cron account" });
    const app = await call("POST", "/admin/v1/apps", dev.adminToken, { name: "cron app", redirectUris: ["http://127.0.0.1/callback"] });
    const install = await call("POST", `/admin/v1/accounts/${acct.json.portalId}/installs`, dev.adminToken, { appId: app.json.appId });
    expect(install.status, install.text).toBe(201);
    const token = install.json.access_token as string;

    const due = Date.now() + 60 * 60_000;
    const created = await call("POST", "/content/api/v2/blog-posts", token, { name: "Cron post", slug: `blog/cron-${Date.now()}`, post_body: "<p>Hi</p>", publish_date: due });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as number;
    const scheduled = await call("POST", `/content/api/v2/blog-posts/${id}/publish-action`, token, { action: "schedule-publish" });
    expect(scheduled.status, scheduled.text).toBe(200);

    // A tick before the publish date leaves it scheduled...
    const early = await fetch(`${dev.url}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}&time=${due - 1}`);
    expect(early.status, `${await early.text()}\n${dev.output()}`).toBe(200);

    // ...the documented trigger at (or after) it publishes it. The tick only enqueues; the local maintenance
    // queue delivers its messages within its batch timeout (1 s). published_at is the time of the tick that
    // published it: `due`, so the early tick (whose messages ran first or not at all) did not.
    const tick = await fetch(`${dev.url}/cdn-cgi/local/scheduled?time=${due}`);
    expect(tick.status, `${await tick.text()}\n${dev.output()}`).toBe(200);
    const tickedAt = Date.now();
    let post = (await call("GET", `/content/api/v2/blog-posts/${id}`, token)).json;
    while (post.state !== "PUBLISHED" && Date.now() - tickedAt < 10_000) {
      await new Promise((r) => setTimeout(r, 100));
      post = (await call("GET", `/content/api/v2/blog-posts/${id}`, token)).json;
    }
    expect(post, dev.output()).toMatchObject({ state: "PUBLISHED", published_at: due });
    // "Within seconds": the whole round trip, tick to published.
    expect(Date.now() - tickedAt).toBeLessThan(10_000);
    expect((await fetch(`${dev.url}${new URL(post.url).pathname}`)).status).toBe(200);
  });

  it("the older trigger path /cdn-cgi/handler/scheduled still runs them", async () => {
    const res = await fetch(`${dev.url}/cdn-cgi/handler/scheduled`);
    expect(res.status, `${await res.text()}\n${dev.output()}`).toBe(200);
  });

  it("serves the web app's static files as Workers static assets, with public/_headers", async () => {
    const res = await fetch(`${dev.url}/static/app.css`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/css");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
