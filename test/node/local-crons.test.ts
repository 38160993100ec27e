/**
 * The documented local cron trigger works (issue 17 §6, README "Running the crons locally"): the Worker
 * started by the `wrangler dev` command answers `GET /cdn-cgi/handler/scheduled` with 200 and runs the
 * crons. With `[assets]` in wrangler.toml this wrangler answered that route with 500 `exception`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "./wrangler-dev";

let dev: WranglerDev;

beforeAll(async () => {
  dev = await startWranglerDev();
});

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
  it("GET /cdn-cgi/handler/scheduled runs the crons: a due scheduled blog post is published", async () => {
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
    const early = await fetch(`${dev.url}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent("* * * * *")}&time=${due - 1}`);
    expect(early.status, `${await early.text()}\n${dev.output()}`).toBe(200);
    expect((await call("GET", `/content/api/v2/blog-posts/${id}`, token)).json.state).toBe("SCHEDULED");

    // ...the documented trigger at (or after) it publishes it.
    const tick = await fetch(`${dev.url}/cdn-cgi/handler/scheduled?time=${due}`);
    expect(tick.status, `${await tick.text()}\n${dev.output()}`).toBe(200);
    const post = (await call("GET", `/content/api/v2/blog-posts/${id}`, token)).json;
    expect(post).toMatchObject({ state: "PUBLISHED", published_at: due });
    expect((await fetch(`${dev.url}${new URL(post.url).pathname}`)).status).toBe(200);
  });

  it("serves the web app's static files without Workers static assets", async () => {
    const res = await fetch(`${dev.url}/static/app.css`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
  });
});
