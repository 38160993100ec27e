/**
 * GET /admin/v1/accounts/{portalId}/export (docs/how-to/account-lifecycle.md "Export"): NDJSON, streamed page by
 * page; a header line, then every row of every table of the move's list and the account's control-plane
 * rows, without secrets and without anything of another account. The round trip inserts the exported rows
 * into another database and finds every table of the move's list there as it is at home.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { EXPORT_FORMAT, EXPORT_PAGE_ROWS, pageRows, QUERY_BUDGET } from "../../src/services/accounts/export";
import { asMover } from "../../src/durable-objects/account-mover/copy";
import { ACCOUNT_CONTROL_TABLES, ACCOUNT_TABLES, type AccountTable } from "../../src/db/account-tables";
import { ADMIN, BASE, call, expectError, send, tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { buildWorld, type World } from "../helpers/world";
import { integratorPath, integratorUrl } from "../helpers/integrator";
import { appSettings, BRIDGE, processed, sync, waitForStatus } from "../ecomm/helpers";

type Row = Record<string, unknown>;

async function exported(portalId: number) {
  const res = await send(new Request(`${BASE}/admin/v1/accounts/${portalId}/export`, { headers: { authorization: `Bearer ${ADMIN}` } }));
  const text = new TextDecoder().decode(await res.arrayBuffer());
  expect(res.status, text).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/x-ndjson");
  const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l) as Row);
  const [header, ...rest] = lines;
  const byTable = new Map<string, Row[]>();
  for (const l of rest) {
    expect(Object.keys(l).sort()).toEqual(["row", "table"]);
    byTable.set(l.table as string, [...(byTable.get(l.table as string) ?? []), l.row as Row]);
  }
  return { header: header!, byTable, text, lines: rest.length };
}

/** The account's rows of `table` as the export must show them: every column but the secret ones. */
async function stored(d1: D1Database, table: AccountTable, portalId: number): Promise<Row[]> {
  const rows = await d1.prepare(`select * from ${table.name} where ${table.where} order by rowid`).bind(portalId).all<Row>();
  return rows.results.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !table.secrets?.includes(k))));
}

const sorted = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).sort();

describe("GET /admin/v1/accounts/{portalId}/export", () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld();
    // Not part of the shared fixture: an association, an import and its end, a pending sync, a merge.
    const associated = await call("PUT", `/crm/v3/objects/contacts/${w.ids.contact}/associations/companies/${w.ids.company}`, { token: w.a.pat });
    expect(associated.status, associated.text).toBe(204);
    await appSettings(w.a, { webhookUri: `${integratorUrl()}${integratorPath("import")}` });
    const started = await call("POST", `${BRIDGE}/stores/${w.ids.store}/import`, { token: w.a.oauth });
    expect(started.status, started.text).toBe(200);
    const ended = await call("POST", `${BRIDGE}/imports/end`, {
      token: w.a.oauth,
      body: { importStartedAt: started.json.importStartedAt, pageCount: 0, itemCount: 0, storeId: w.ids.store, objectType: "PRODUCT" },
    });
    expect(ended.status, ended.text).toBe(204);
    await sync(w.a.oauth, "PRODUCT", [{ externalObjectId: "pending-1", properties: { title: "Queued" } }], w.ids.store);
    await waitForStatus(w.a.oauth, "PRODUCT", "pending-1", processed, w.ids.store); // no write may land between export and comparison
    const second = await call("POST", "/crm/v3/objects/contacts", { token: w.a.pat, body: { properties: { firstname: "merged" } } });
    const merged = await send(
      new Request(`${BASE}/contacts/v1/contact/merge-vids/${w.ids.contact}`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.a.oauth}`, "content-type": "application/json" },
        body: JSON.stringify({ vidToMerge: Number(second.json.id) }),
      }),
    );
    expect(merged.status, await merged.text()).toBe(200);
    // Sent mail: one through the API, one over SMTP with a token of the account.
    const single = await call("POST", "/marketing/v3/transactional/single-email/send", { token: w.a.oauth, body: { emailId: 1, message: { to: "buyer@example.com" } } });
    expect(single.status, single.text).toBe(200);
    const token = await call("POST", "/marketing/v3/transactional/smtp-tokens", { token: w.a.oauth, body: { createContact: false, campaignName: "export" } });
    const mailed = await call("POST", "/admin/v1/smtp/messages", {
      token: ADMIN,
      body: { userName: token.json.id, password: token.json.password, from: "shop@example.com", to: ["buyer@example.com"], subject: "s", html: "<p>h</p>" },
    });
    expect(mailed.status, mailed.text).toBe(201);
    // A webhook event still waiting in the outbox (the drain takes them out within seconds, so one is written
    // here as a write with a subscription would leave it).
    const home = await accountD1(w.a.portalId);
    await home
      .prepare(
        "insert into webhook_outbox (id, portal_id, app_id, subscription_id, subscription_type, object_id, occurred_at, change_source) values ((select seq + 1 from id_sequences where name = 'webhook_outbox'), ?, ?, 1, 'contact.creation', ?, ?, 'API')",
      )
      .bind(w.a.portalId, w.a.appId, w.ids.contact, Date.now())
      .run();
  }, 90_000);

  it("round-trips every table of the move's list: each exported row inserts into another database as it is at home", async () => {
    const { header, byTable } = await exported(w.a.portalId);
    expect(header).toEqual({ portalId: w.a.portalId, exportedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), format: EXPORT_FORMAT });
    const home = await accountD1(w.a.portalId);
    const away = home === env.SHARD_1 ? env.SHARD_2 : env.SHARD_1;
    const empty: string[] = [];
    // The restore is a move's copy: the account's fence on the other database, as the mover sets it.
    await away.prepare("insert into account_fences (portal_id, state, created_at) values (?, 'incoming', ?)").bind(w.a.portalId, Date.now()).run();
    // A test account's snapshots are controls, not its data: the export leaves them out (docs/reference/testkit.md).
    for (const table of ACCOUNT_TABLES.filter((t) => !t.notExported)) {
      const rows = byTable.get(table.name) ?? [];
      if (rows.length === 0) empty.push(table.name);
      expect(sorted(rows), table.name).toEqual(sorted(await stored(home, table, w.a.portalId)));
      // Restore into the other database as the mover copies an account in (its ids are of the home range),
      // then read back.
      await asMover(
        away,
        w.a.portalId,
        rows.map((row) => {
          const cols = Object.keys(row);
          return away.prepare(`insert into ${table.name} (${cols.map((c) => `"${c}"`).join(", ")}) values (${cols.map(() => "?").join(", ")})`).bind(...Object.values(row));
        }),
      );
      expect(sorted(await stored(away, table, w.a.portalId)), `${table.name} restored`).toEqual(sorted(rows));
    }
    // The copy goes again (as a failed move's copy would), so no account has rows on two databases.
    await asMover(away, w.a.portalId, ACCOUNT_TABLES.map((t) => away.prepare(`delete from ${t.name} where ${t.where}`).bind(w.a.portalId)));
    await away.prepare("delete from account_fences where portal_id = ?").bind(w.a.portalId).run();
    // The fixture must exercise every table, or the round trip proves nothing for the empty ones.
    expect(empty, "tables of the move's list without a row in the fixture").toEqual([]);
  });

  it("imports into a fresh account, whose export then holds every table of this one's: the data with its ids, the people with the ids the answer maps", async () => {
    const { text, byTable } = await exported(w.a.portalId);
    // On the other database: in this one the account's ids are taken (an import keeps the data's ids).
    const b = await tenant({ shard: w.a.shard === "SHARD_1" ? "SHARD_2" : "SHARD_1" });
    const before = await exported(b.portalId);
    const res = await send(
      new Request(`${BASE}/admin/v1/accounts/${b.portalId}/import`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/x-ndjson" }, body: text }),
    );
    const answer = (await res.clone().json()) as { ids: Record<string, Record<string, number>>; counts: Record<string, number>; skipped: Record<string, number> };
    expect(res.status, JSON.stringify(answer)).toBe(200);
    const again = await exported(b.portalId);
    // Each exported id of a control-plane row has a new one (the exported account still holds its own).
    const id = (table: string) => (v: unknown) => (v === null ? null : answer.ids[table]![String(v)]);
    for (const table of ["users", "owners", "teams", "private_apps", "installs"]) {
      expect(Object.keys(answer.ids[table]!).length, table).toBe(byTable.get(table)?.length ?? 0);
    }
    const user = id("users");
    const owner = id("owners");
    const team = id("teams");
    const mapped: Record<string, (row: Row) => Row> = {
      crm_objects: (row) => {
        const props = JSON.parse(row.properties as string) as Record<string, string>;
        if (props.hubspot_owner_id) props.hubspot_owner_id = String(owner(props.hubspot_owner_id));
        return { ...row, properties: JSON.stringify(props) };
      },
      blog_posts: (row) => ({ ...row, author_user_id: user(row.author_user_id) ?? row.author_user_id }),
      users: (row) => ({ ...row, user_id: user(row.user_id) }),
      owners: (row) => ({
        ...row,
        owner_id: owner(row.owner_id),
        user_id: user(row.user_id),
        primary_team_id: team(row.primary_team_id),
        secondary_team_ids: JSON.stringify((JSON.parse(row.secondary_team_ids as string) as number[]).map(team)),
      }),
      teams: (row) => ({ ...row, team_id: team(row.team_id) }),
      private_apps: (row) => ({ ...row, id: id("private_apps")(row.id) }),
      installs: (row) => ({ ...row, id: id("installs")(row.id) }),
      credentials: (row) => ({ ...row, user_id: user(row.user_id), install_id: id("installs")(row.install_id), private_app_id: id("private_apps")(row.private_app_id) }),
    };
    // The account's data as a snapshot holds it; the outbox's pending events are the exported account's own (docs/reference/testkit.md).
    for (const table of ACCOUNT_TABLES.filter((t) => !t.notExported)) {
      const column = table.name === "ecomm_settings" ? "owner_id" : "portal_id";
      const expected = table.name === "webhook_outbox" ? [] : (byTable.get(table.name) ?? []).map((row) => ({ ...(mapped[table.name] ?? ((r: Row) => r))(row), [column]: b.portalId }));
      expect(sorted(again.byTable.get(table.name) ?? []), table.name).toEqual(sorted(expected));
    }
    // The people: B's own rows, and A's with their new ids (B's user, private app and install stay B's).
    for (const table of ["users", "owners", "teams", "private_apps", "installs", "credentials"]) {
      const rows = byTable.get(table) ?? [];
      expect(rows.length, `${table}: the world holds none`).toBeGreaterThan(0);
      const expected = [...(before.byTable.get(table) ?? []), ...rows.map((row) => ({ ...mapped[table]!(row), portal_id: b.portalId }))];
      expect(sorted(again.byTable.get(table) ?? []), table).toEqual(sorted(expected));
    }
    // The account's settings are the export's; its id, database, status, creation time and accountType stay B's.
    const [a] = byTable.get("accounts")!;
    const [own] = before.byTable.get("accounts")!;
    expect(again.byTable.get("accounts")).toEqual([
      { ...own, name: a!.name, addons: a!.addons, rate_limit: a!.rate_limit, time_zone: a!.time_zone, company_currency: a!.company_currency, additional_currencies: a!.additional_currencies },
    ]);
    expect(answer.skipped).toEqual({ webhook_outbox: byTable.get("webhook_outbox")!.length, ...(byTable.has("account_moves") ? { account_moves: byTable.get("account_moves")!.length } : {}) });
    // No imported credential opens anything: an export holds no secret. B's own tokens still work.
    const imported = await env.DB.prepare("select count(*) as n from credentials where portal_id = ? and token_hash like 'imported:%'").bind(b.portalId).first<number>("n");
    expect(imported).toBe(byTable.get("credentials")!.length);
    expect((await call("GET", "/crm/v3/owners", { token: b.pat })).json.results.map((o: { id: string }) => Number(o.id))).toContain(owner(w.ids.owner));
  });

  it("includes the account's control-plane rows without any secret, and nothing of another account", async () => {
    const { byTable, text } = await exported(w.a.portalId);
    for (const table of ACCOUNT_CONTROL_TABLES) {
      if (table.notExported) expect(byTable.has(table.name), table.name).toBe(false);
      else expect(sorted(byTable.get(table.name) ?? []), table.name).toEqual(sorted(await stored(env.DB, table, w.a.portalId)));
    }
    expect(byTable.get("accounts")).toEqual([expect.objectContaining({ portal_id: w.a.portalId, status: "active" })]);
    expect(byTable.get("users")!.length).toBeGreaterThan(0);
    // Owners (with their profile) and teams go with the users: a restore re-creates them from these rows.
    expect(byTable.get("owners")).toContainEqual(expect.objectContaining({ owner_id: w.ids.owner, user_id: w.a.userId, archived: 0 }));
    expect(byTable.get("teams")).toEqual([expect.objectContaining({ team_id: w.ids.team })]);
    for (const secret of [w.a.pat, w.a.oauth, w.a.refresh, w.a.developerKey, w.a.clientSecret, await sha256Hex(w.a.pat), await sha256Hex(w.a.oauth)]) {
      expect(text.includes(secret), "a secret in the export").toBe(false);
    }
    expect(text).not.toMatch(/password_hash|token_hash|client_secret|pbkdf2\$/);
    // Every row is A's: by its portal_id, or ecommerce settings by their owner.
    for (const [table, rows] of byTable) {
      for (const row of rows) {
        const owner = table === "ecomm_settings" ? row.owner_id : row.portal_id;
        expect(owner, `${table} row of another account`).toBe(w.a.portalId);
      }
    }
    for (const bValue of [w.b.userEmail, w.ids.bStore, w.b.clientId]) expect(text.includes(bValue)).toBe(false);
  });

  it("streams an account larger than one page: every row once, in pages", async () => {
    const t = await tenant();
    const d1 = await accountD1(t.portalId);
    const n = EXPORT_PAGE_ROWS * 2 + 7;
    await d1
      .prepare(
        "with recursive k(i) as (select 1 union all select i + 1 from k where i < ?) insert into crm_objects (id, portal_id, object_type, properties, guid, created_at, updated_at) select (select seq from id_sequences where name = 'crm_objects') + i, ?, 'contacts', json_object('firstname', 'bulk' || i), lower(hex(randomblob(16))), i, i from k",
      )
      .bind(n, t.portalId)
      .run();
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "acknowledged" } } });
    expect(made.status).toBe(201);
    const { byTable } = await exported(t.portalId);
    const objects = byTable.get("crm_objects")!;
    expect(objects).toHaveLength(n + 1);
    expect(new Set(objects.map((o) => o.id)).size).toBe(n + 1);
    expect(objects.some((o) => o.id === Number(made.json.id))).toBe(true); // a write acknowledged before the export
  });

  it.each([0, 5_000, 2_000_000, 80_000_000])("pages %i rows within the invocation's query budget, however they spread over the tables", (total) => {
    const tables = ACCOUNT_TABLES.length + ACCOUNT_CONTROL_TABLES.length;
    const rows = pageRows(total, tables);
    expect(rows).toBeGreaterThanOrEqual(EXPORT_PAGE_ROWS);
    // The worst spread: every table ends on a short page of its own.
    expect(Math.ceil(total / rows) + tables + 2).toBeLessThanOrEqual(QUERY_BUDGET);
  });

  it.each([
    ["a non-numeric id", "abc", 400, "VALIDATION_ERROR"],
    ["id 0", "0", 400, "VALIDATION_ERROR"],
    ["an unknown account", "999999999", 404, "OBJECT_NOT_FOUND"],
  ])("%s: the error envelope", async (_name, id, status, category) => {
    expectError(await call("GET", `/admin/v1/accounts/${id}/export`, { token: ADMIN }), status, category);
  });

  it("is the operator's alone: the account's own credentials get 401 and no data", async () => {
    for (const token of [w.a.pat, w.a.oauth, w.b.pat, w.a.developerKey]) {
      const res = await call("GET", `/admin/v1/accounts/${w.a.portalId}/export`, { token });
      expectError(res, 401, "INVALID_AUTHENTICATION");
    }
  });
});
