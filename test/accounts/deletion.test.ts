/**
 * DELETE /admin/v1/accounts/{portalId} (docs/how-to/account-lifecycle.md "Delete"): a 202, then a job like a move
 * that GET shows as `deletion`; the account stops answering at once; afterwards no database holds a row of
 * it (checked physically over every table of every database), its tokens get 401, its public pages 404, its
 * queued messages are acknowledged and logged, and its portalId is never handed out again. A deletion that
 * fails part-way retries by itself, the account never answering meanwhile.
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { CONTROL_SHARD, shardNames } from "../../src/db/shards";
import { ACCOUNT_CONTROL_TABLES, ACCOUNT_TABLES } from "../../src/db/account-tables";
import { verifySmtpCredentials } from "../../src/services/smtp/tokens";
import { ADMIN, admin, call, expectError, tenant, type Tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { buildWorld } from "../helpers/world";
import { createPost, page, publish, TOKENS } from "../blog/helpers";
import { deliver, qmsg } from "../ecomm/queue-helpers";
import { signIn } from "../web/helpers";
import { hookUp, subscribe, waitForEvents } from "../webhooks/helpers";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const contacts = (token: string) => call("GET", "/crm/v3/objects/contacts?limit=1", { token });
const databases = () => [CONTROL_SHARD, ...shardNames(env)].map((name) => [name, name === CONTROL_SHARD ? env.DB : (env as unknown as Record<string, D1Database>)[name]!] as const);
/** App-level tables: an app belongs to its developer, not to the accounts it is installed in. */
const APP_TABLES = new Set(["apps", "card_types", "timeline_event_types", "timeline_event_properties", "extension_settings"]);

/** Polls the operator API until the account is a 404. */
async function waitUntilGone(portalId: number, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await call("GET", `/admin/v1/accounts/${portalId}`, { token: ADMIN });
    if (res.status === 404) return;
    expect(res.json.status).toBe("deleting");
    if (Date.now() > until) throw new Error(`deletion did not finish: ${JSON.stringify(res.json.deletion)}`);
    await sleep(250);
  }
}

/**
 * Every row of every table of every database that names the account: by a portal_id column, an
 * ecommerce settings owner, the search index's portal key, or any of `strings` anywhere in a row.
 */
async function leftovers(portalId: number, strings: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const [name, d1] of databases()) {
    const tables = await d1.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '\\_cf%' escape '\\' and name not like 'd1_%'").all<{ name: string }>();
    for (const { name: table } of tables.results) {
      const cols = (await d1.prepare(`select name from pragma_table_info('${table}')`).all<{ name: string }>()).results.map((c) => c.name);
      const conditions: [string, unknown][] = [];
      if (cols.includes("portal_id")) conditions.push(["portal_id = ?", portalId]);
      if (cols.includes("owner_kind") && cols.includes("owner_id")) conditions.push(["(owner_kind = 'portal' and owner_id = ?)", portalId]);
      if (table === "contact_search") conditions.push(["portal = ?", `p${portalId}`]);
      if (!APP_TABLES.has(table) && cols.length) {
        // One flat function call over the row: a `||` chain of every column nests one level per column and,
        // with an OR per marker string, passed SQLite's expression depth of 100 on the widest tables.
        const row = `json_array(${cols.map((c) => `cast("${c}" as text)`).join(", ")})`;
        for (const s of strings) conditions.push([`instr(${row}, ?) > 0`, s]);
      }
      if (!conditions.length) continue;
      const where = conditions.map(([c]) => c).join(" or ");
      const n = await d1.prepare(`select count(*) as n from "${table}" where ${where}`).bind(...conditions.map(([, v]) => v)).first<number>("n");
      if (n) found.push(`${name}.${table}: ${n}`);
    }
  }
  return found;
}

describe("the deletion's table lists", () => {
  it("name every table that holds account rows, so a new table cannot be left behind", async () => {
    const listed = new Set([...ACCOUNT_TABLES, ...ACCOUNT_CONTROL_TABLES].map((t) => t.name));
    const tables = await env.DB.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '\\_cf%' escape '\\' and name not like 'd1_%'").all<{ name: string }>();
    const unlisted: string[] = [];
    for (const { name } of tables.results) {
      const cols = (await env.DB.prepare(`select name from pragma_table_info('${name}')`).all<{ name: string }>()).results.map((c) => c.name);
      // account_fences and account_companions (a home shard's marker) are the deletion's own bookkeeping, removed at its end.
      if ((cols.includes("portal_id") || cols.includes("owner_id")) && !listed.has(name) && name !== "account_fences" && name !== "account_companions") unlisted.push(name);
    }
    expect(unlisted, "add these to ACCOUNT_TABLES or ACCOUNT_CONTROL_TABLES in src/db/account-tables.ts").toEqual([]);
  });
});

describe("DELETE /admin/v1/accounts/{portalId}", () => {
  it("runs as a job, stops the account answering at once, and leaves no row of it on any database", { timeout: 150_000 }, async () => {
    const w = await buildWorld();
    const a = w.a;
    const bystander = await tenant({ shard: a.shard });
    // Moved once, so its old database keeps a fence row: the deletion must clear every database.
    await admin("POST", `/admin/v1/accounts/${a.portalId}/move`, { shard: "SHARD_2" });
    await waitUntilMoved(a.portalId);
    const post = await createPost(a, { name: "Public" });
    await publish(a, post.id);
    expect((await page(post.url)).status).toBe(200);
    const smtp = (await call("POST", TOKENS, { token: a.oauth, body: { campaignName: "c" } })).json;
    expect((await verifySmtpCredentials(env, smtp.userName, smtp.password)).ok).toBe(true);
    const browser = await signIn(a);
    const marks = w.forbidden.filter((v) => v.startsWith("A-") || v.includes("@owner.example"));
    expect(await leftovers(a.portalId, marks)).not.toEqual([]); // the check finds the account's rows while they exist
    const bBefore = (await contacts(w.b.pat)).json;

    const res = await call("DELETE", `/admin/v1/accounts/${a.portalId}`, { token: ADMIN });
    expect(res.status, res.text).toBe(202);
    expect(res.json).toEqual({ portalId: a.portalId, deletion: expect.objectContaining({ state: "marking", deleted: {} }) });

    // From the 202 on, the account answers nothing; the operator sees the job.
    const during = await admin("GET", `/admin/v1/accounts/${a.portalId}`);
    expect(during).toMatchObject({ status: "deleting", deletion: { state: expect.any(String), startedAt: expect.any(Number) } });
    expectError(await contacts(a.pat), 401, "INVALID_AUTHENTICATION");
    expectError(await contacts(a.oauth), 401, "INVALID_AUTHENTICATION");
    expect((await call("GET", "/app", { headers: { cookie: browser.cookie } })).status).toBe(302);
    expect((await page(post.url)).status).toBe(404);
    expect((await verifySmtpCredentials(env, smtp.userName, smtp.password)).ok).toBe(false);
    expectError(await call("PATCH", `/admin/v1/accounts/${a.portalId}`, { token: ADMIN, body: { status: "active" } }), 409, "CONFLICT");
    expectError(await call("POST", `/admin/v1/accounts/${a.portalId}/move`, { token: ADMIN, body: { shard: "SHARD_1" } }), 409, "CONFLICT");
    expectError(await call("GET", `/admin/v1/accounts/${a.portalId}/export`, { token: ADMIN }), 409, "CONFLICT");
    const again = await call("DELETE", `/admin/v1/accounts/${a.portalId}`, { token: ADMIN });
    expect(again.status).toBe(202);
    expect(again.json.deletion.startedAt).toBe(res.json.deletion.startedAt);

    // A queued message of the account is acknowledged and logged, not retried.
    const warn = vi.spyOn(console, "warn");
    const origin = { portalId: a.portalId, appId: a.appId, storeId: w.ids.store, storeGen: "gone" };
    const settled = await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "late", properties: { title: "Late" } })]);
    expect(settled.acked(0)).toBe(true);
    expect(settled.retried(0)).toBe(false);
    expect(warn.mock.calls.some((c) => String(c[0]).includes(`account ${a.portalId}`))).toBe(true);
    warn.mockRestore();

    await waitUntilGone(a.portalId);
    expect(await leftovers(a.portalId, marks)).toEqual([]);
    expectError(await call("DELETE", `/admin/v1/accounts/${a.portalId}`, { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
    expectError(await contacts(a.pat), 401, "INVALID_AUTHENTICATION");
    expectError(await contacts(a.oauth), 401, "INVALID_AUTHENTICATION");
    expect((await page(post.url)).status).toBe(404);
    // Other accounts, on the same databases, are untouched; the app stays its developer's.
    expect((await contacts(w.b.pat)).json).toEqual(bBefore);
    expect((await contacts(bystander.pat)).status).toBe(200);
    expect(await env.DB.prepare("select count(*) as n from apps where app_id = ?").bind(a.appId).first<number>("n")).toBe(1);
    expect(await env.DB.prepare("select count(*) as n from card_types where id = ?").bind(w.ids.card).first<number>("n")).toBe(1);
  });

  it("takes the account's webhook deliveries and their attempts with it; the app keeps its settings and subscriptions", { timeout: 120_000 }, async () => {
    const t = await tenant();
    const path = await hookUp(t);
    await subscribe(t, "contact.creation");
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "hooked" } } });
    expect(made.status, made.text).toBe(201);
    await waitForEvents(path, 1);
    // The delivery log is stored with the account: counted on every database.
    const everywhere = async (q: string) => {
      let n = 0;
      for (const d1 of [env.DB, env.SHARD_1, env.SHARD_2]) n += (await d1.prepare(q).bind(t.portalId).first<number>("n"))!;
      return n;
    };
    const deliveries = () => everywhere("select count(*) as n from webhook_deliveries d where exists (select 1 from json_each(d.events) e where e.value ->> 'portalId' = ?)");
    const attempts = () => everywhere("select count(*) as n from webhook_attempts where portal_id = ?");
    await expect.poll(attempts).toBeGreaterThan(0);
    expect(await deliveries()).toBeGreaterThan(0);

    expect((await call("DELETE", `/admin/v1/accounts/${t.portalId}`, { token: ADMIN })).status).toBe(202);
    await waitUntilGone(t.portalId);
    expect(await deliveries()).toBe(0);
    expect(await attempts()).toBe(0);
    expect(await env.DB.prepare("select count(*) as n from webhook_subscriptions where app_id = ?").bind(t.appId).first<number>("n")).toBe(1);
    expect(await env.DB.prepare("select count(*) as n from webhook_settings where app_id = ?").bind(t.appId).first<number>("n")).toBe(1);
  });

  it("a deletion that fails part-way retries by itself, and the account never answers meanwhile", { timeout: 120_000 }, async () => {
    const t = await tenant({ shard: "SHARD_1" });
    for (let i = 0; i < 3; i++) expect((await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: `f${i}` } } })).status).toBe(201);
    // A real failure in the database, no mock: deleting this account's records aborts.
    await env.SHARD_1.exec(`create trigger broken_disk before delete on crm_objects when old.portal_id = ${t.portalId} begin select raise(abort, 'disk I/O error'); end`);
    try {
      expect((await call("DELETE", `/admin/v1/accounts/${t.portalId}`, { token: ADMIN })).status).toBe(202);
      const failing = await waitFor(async () => {
        const res = await admin("GET", `/admin/v1/accounts/${t.portalId}`);
        return res.deletion?.error ? res : undefined;
      });
      expect(failing).toMatchObject({ status: "deleting", deletion: { state: "purging", error: expect.stringMatching(/disk I\/O error/) } });
      expectError(await contacts(t.pat), 401, "INVALID_AUTHENTICATION");
      expect(await (await accountD1(t.portalId)).prepare("select count(*) as n from crm_objects where portal_id = ?").bind(t.portalId).first<number>("n")).toBe(3);
    } finally {
      await env.SHARD_1.exec("drop trigger broken_disk");
    }
    await waitUntilGone(t.portalId);
    expect(await leftovers(t.portalId, [])).toEqual([]);
  });

  it("never hands out a deleted portalId again, even the newest one", { timeout: 90_000 }, async () => {
    const t = await tenant();
    await admin("DELETE", `/admin/v1/accounts/${t.portalId}`);
    await waitUntilGone(t.portalId);
    const next = await admin("POST", "/admin/v1/accounts", { name: "after" });
    expect(next.portalId).toBeGreaterThan(t.portalId);
  });

  it("refuses while the account moves, and changes nothing", async () => {
    const t = await tenant();
    const now = Date.now();
    await env.DB.prepare("insert into account_moves (portal_id, source, target, phase, copied, started_at, updated_at) values (?, ?, 'SHARD_2', 'copying', '{}', ?, ?)")
      .bind(t.portalId, t.shard, now, now)
      .run();
    try {
      expectError(await call("DELETE", `/admin/v1/accounts/${t.portalId}`, { token: ADMIN }), 409, "CONFLICT");
      expect((await admin("GET", `/admin/v1/accounts/${t.portalId}`)).status).toBe("active");
      expect((await contacts(t.pat)).status).toBe(200);
    } finally {
      await env.DB.prepare("delete from account_moves where portal_id = ?").bind(t.portalId).run();
    }
  });

  it.each([
    ["a non-numeric id", "abc", 400, "VALIDATION_ERROR"],
    ["id 0", "0", 400, "VALIDATION_ERROR"],
    ["a negative id", "-3", 400, "VALIDATION_ERROR"],
    ["an unknown account", "999999999", 404, "OBJECT_NOT_FOUND"],
  ])("%s: the error envelope", async (_name, id, status, category) => {
    expectError(await call("DELETE", `/admin/v1/accounts/${id}`, { token: ADMIN }), status, category);
  });

  it("is the operator's alone: account and developer credentials get 401 and the account stays", async () => {
    const t: Tenant = await tenant();
    const other = await tenant();
    for (const token of [t.pat, t.oauth, t.developerKey, other.pat]) {
      expectError(await call("DELETE", `/admin/v1/accounts/${t.portalId}`, { token }), 401, "INVALID_AUTHENTICATION");
    }
    expect((await admin("GET", `/admin/v1/accounts/${t.portalId}`)).status).toBe("active");
    expect((await contacts(t.pat)).status).toBe(200);
  });
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > until) throw new Error("condition not reached in time");
    await sleep(250);
  }
}

const waitUntilMoved = (portalId: number) =>
  waitFor(async () => {
    const res = await admin("GET", `/admin/v1/accounts/${portalId}`);
    if (res.move?.state === "failed") throw new Error(`move failed: ${res.move.error}`);
    return res.move ? undefined : res;
  });
