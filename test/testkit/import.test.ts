/**
 * Import of an account export (docs/reference/testkit.md, "Import"): the NDJSON of the export goes into an
 * empty account of any type with its ids; the people and credentials with new ids; a malformed line
 * is a 400 naming its number and nothing is written; an account holding data, or a database holding the
 * export's ids, is a 409; only ADMIN_TOKEN. The full round trip over every table is in
 * test/accounts/export.test.ts.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, BASE, call, send, tenant, unique, type Tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";

async function exportOf(t: Tenant): Promise<string> {
  const res = await send(new Request(`${BASE}/admin/v1/accounts/${t.portalId}/export`, { headers: { authorization: `Bearer ${ADMIN}` } }));
  const text = new TextDecoder().decode(await res.arrayBuffer());
  expect(res.status, text).toBe(200);
  return text;
}

async function importInto(t: Tenant, body: string | null, token = ADMIN) {
  const res = await send(
    new Request(`${BASE}/admin/v1/accounts/${t.portalId}/import`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" }, body }),
  );
  const text = await res.text();
  let json: Record<string, unknown> & { message?: string; errors?: { message: string }[] } = {};
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    // not JSON: the assertion on the status shows the text
  }
  return { status: res.status, text, json, headers: res.headers };
}

const other = (t: Tenant) => (t.shard === "SHARD_1" ? "SHARD_2" : "SHARD_1");
const rows = async (t: Tenant) =>
  (await (await accountD1(t.portalId)).prepare("select count(*) as n from crm_objects where portal_id = ?").bind(t.portalId).first<number>("n")) ?? 0;

/** An account with a contact, a company and their association. */
async function seeded() {
  const a = await tenant({ shard: "SHARD_1" });
  const email = `${unique("ada")}@example.com`;
  const ada = (await call("POST", "/crm/v3/objects/contacts", { token: a.pat, body: { properties: { email, firstname: "Ada" } } })).json.id as string;
  const acme = (await call("POST", "/crm/v3/objects/companies", { token: a.pat, body: { properties: { name: "Acme" } } })).json.id as string;
  expect((await call("PUT", `/crm/v4/objects/contacts/${ada}/associations/default/companies/${acme}`, { token: a.pat })).status).toBe(200);
  return { a, ada, acme, email };
}

describe("POST /admin/v1/accounts/{portalId}/import", () => {
  it("puts the export's data into an empty account of any type, ids included, and its people with new ids", async () => {
    const { a, ada, acme, email } = await seeded();
    const text = await exportOf(a);
    const b = await tenant({ shard: other(a) }); // STANDARD: an import is the operator's restore, not a test control
    const res = await importInto(b, text);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      portalId: b.portalId,
      from: { portalId: a.portalId },
      counts: expect.objectContaining({ crm_objects: 2, crm_associations: 2, accounts: 1, users: 1, private_apps: 1, installs: 1 }),
      skipped: {},
    });
    // The people come with new ids: A still holds its own.
    const ids = res.json.ids as Record<string, Record<string, number>>;
    expect(Object.keys(ids.users!)).toEqual([String(a.userId)]);
    expect(ids.users![String(a.userId)]).not.toBe(a.userId);
    const got = await call("GET", `/crm/v3/objects/contacts/${ada}?properties=email,firstname&associations=companies`, { token: b.pat });
    expect(got.status, got.text).toBe(200);
    expect(got.json.properties).toMatchObject({ email, firstname: "Ada" });
    expect(got.json.associations.companies.results.map((r: { id: string }) => r.id)).toEqual([acme]);
    // The search index is rebuilt as rows go in; B's own tokens still work, A's do not reach B's data.
    expect((await call("POST", "/crm/v3/objects/contacts/search", { token: b.pat, body: { query: "Ada" } })).json.total).toBe(1);
    expect((await call("GET", `/crm/v3/objects/contacts/${ada}`, { token: a.pat })).status).toBe(200);
    // New records of B get ids of B's database, after its counter.
    const made = await call("POST", "/crm/v3/objects/contacts", { token: b.pat, body: { properties: { firstname: "New" } } });
    expect(made.status, made.text).toBe(201);
    // An import goes into an empty account only.
    const again = await importInto(b, text);
    expect(again.status, again.text).toBe(409);
    expect(again.json.message).toContain("holds data");
  });

  it("an account exported, then reset, takes its own export back, ids included", async () => {
    const a = await tenant({ accountType: "DEVELOPER_TEST" });
    const ada = (await call("POST", "/crm/v3/objects/contacts", { token: a.pat, body: { properties: { firstname: "Ada" } } })).json.id as string;
    const text = await exportOf(a);
    const before = (await env.DB.prepare("select (select count(*) from users where portal_id = ?1) + (select count(*) from private_apps where portal_id = ?1) + (select count(*) from credentials where portal_id = ?1) as n").bind(a.portalId).first<number>("n")) ?? 0;
    expect((await call("POST", `/admin/v1/accounts/${a.portalId}/reset`, { token: ADMIN })).status).toBe(200);
    expect((await call("GET", `/crm/v3/objects/contacts/${ada}`, { token: a.pat })).status).toBe(404);
    const res = await importInto(a, text);
    expect(res.status, res.text).toBe(200);
    expect((await call("GET", `/crm/v3/objects/contacts/${ada}?properties=firstname`, { token: a.pat })).json.properties.firstname).toBe("Ada");
    expect(await exportOf(a)).toContain(`"id":${ada},`);
    // Its people were its own already: mapped onto themselves, their tokens kept, nothing added.
    const ids = res.json.ids as Record<string, Record<string, number>>;
    expect(ids.users).toEqual({ [a.userId]: a.userId });
    expect(res.json.skipped).toMatchObject({ credentials: expect.any(Number) });
    expect(res.json.counts).not.toHaveProperty("credentials");
    const people = async () => (await env.DB.prepare("select (select count(*) from users where portal_id = ?1) + (select count(*) from private_apps where portal_id = ?1) + (select count(*) from credentials where portal_id = ?1) as n").bind(a.portalId).first<number>("n")) ?? 0;
    expect(await people()).toBe(before);
  });

  it("a database that holds the export's ids is a 409, nothing written", async () => {
    const { a } = await seeded();
    const c = await tenant({ shard: a.shard });
    const users = async () => (await env.DB.prepare("select count(*) as n from users where portal_id = ?").bind(c.portalId).first<number>("n")) ?? 0;
    const had = await users();
    const res = await importInto(c, await exportOf(a));
    expect(res.status, res.text).toBe(409);
    expect(res.json.message).toContain("ids");
    expect(await rows(c)).toBe(0);
    // The people, written before the data's batch, were taken back.
    expect(await users()).toBe(had);
  });

  it.each([
    ["a line that is not JSON", (lines: string[]) => [lines[0], lines[1], "{not json", ...lines.slice(2)], "line 3: not JSON"],
    ["a header that is not the export's", (lines: string[]) => ['{"portalId": 1}', ...lines.slice(1)], "line 1: the first line is the export's header"],
    ["an unknown table", (lines: string[]) => [...lines, '{"table": "nope", "row": {}}'], "is not a table of an account export"],
    ["an unknown column", (lines: string[]) => [...lines, '{"table": "crm_objects", "row": {"id": 1, "colour": "red"}}'], "crm_objects has no column \"colour\""],
    ["a line of another shape", (lines: string[]) => [...lines, '{"table": "crm_objects"}'], 'a line of an export is {"table"'],
    ["a nested value", (lines: string[]) => [...lines, '{"table": "crm_objects", "row": {"properties": {"a": 1}}}'], "is not a string, number, boolean or null"],
    ["an empty line", (lines: string[]) => [lines[0], "", ...lines.slice(1)], "line 2: an empty line"],
  ])("%s is a 400 naming the line, and nothing is written", async (_name, edit, message) => {
    const { a } = await seeded();
    const lines = (await exportOf(a)).trimEnd().split("\n");
    const b = await tenant({ shard: other(a) });
    const res = await importInto(b, edit(lines).join("\n") + "\n");
    expect(res.status, res.text).toBe(400);
    expect(res.json).toMatchObject({ status: "error", category: "VALIDATION_ERROR" });
    expect(res.json.message).toContain(message);
    expect(await rows(b)).toBe(0);
  });

  it("an empty body is a 400", async () => {
    const b = await tenant();
    const res = await importInto(b, "");
    expect(res.status, res.text).toBe(400);
    expect(res.json.message).toContain("line 1");
  });

  it("only the ADMIN_TOKEN: the account's own tokens get 401", async () => {
    const { a } = await seeded();
    const text = await exportOf(a);
    const b = await tenant({ shard: other(a) });
    for (const token of [b.pat, b.oauth]) {
      const res = await importInto(b, text, token);
      expect(res.status, res.text).toBe(401);
    }
    expect(await rows(b)).toBe(0);
    expect((await importInto({ ...b, portalId: 999_999_999 }, text)).status).toBe(404);
  });
});
