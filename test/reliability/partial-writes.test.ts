/**
 * A write that fails half-way leaves nothing behind (a multi-statement write is one
 * db.batch, which commits all or nothing). The fault is real: the second statement's table is briefly missing.
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { admin, call, expectError, tenant, unique } from "../helpers/api";

const count = async (table: string) => (await env.DB.prepare(`select count(*) as n from ${table}`).first<{ n: number }>())!.n;

async function withoutCredentials<T>(fn: () => Promise<T>): Promise<T> {
  const quiet = vi.spyOn(console, "error").mockImplementation(() => {}); // the 500's log line
  await env.DB.exec("alter table credentials rename to credentials_away");
  try {
    return await fn();
  } finally {
    await env.DB.exec("alter table credentials_away rename to credentials");
    quiet.mockRestore();
  }
}

describe("operator writes are all or nothing", () => {
  it("an app whose developer key cannot be stored is not created", async () => {
    const before = await count("apps");
    const res = await withoutCredentials(() => call("POST", "/admin/v1/apps", { token: "test-admin-token", body: { name: unique("app"), redirectUris: ["https://app.example.com/cb"] } }));
    expectError(res, 500, "INTERNAL_ERROR");
    expect(await count("apps")).toBe(before);
    // And the normal path still links the key to the app it created.
    const app = await admin("POST", "/admin/v1/apps", { name: unique("app"), redirectUris: ["https://app.example.com/cb"] });
    const row = await env.DB.prepare("select c.app_id from credentials c where c.kind = 'developer' and c.app_id = ?").bind(app.appId).first();
    expect(row).toEqual({ app_id: app.appId });
    expect((await call("GET", `/integrations/v1/${app.appId}/timeline/event-types`, { token: app.developerKey })).status).toBe(200);
  });

  it("a private app whose token cannot be stored is not created", async () => {
    const t = await tenant();
    const before = await count("private_apps");
    const res = await withoutCredentials(() => call("POST", `/admin/v1/accounts/${t.portalId}/private-apps`, { token: "test-admin-token", body: { name: "pa" } }));
    expectError(res, 500, "INTERNAL_ERROR");
    expect(await count("private_apps")).toBe(before);
    const pa = await admin("POST", `/admin/v1/accounts/${t.portalId}/private-apps`, { name: "pa2", scopes: ["oauth", "crm.objects.contacts.read"] });
    expect((await call("GET", "/crm/v3/objects/contacts", { token: pa.token })).status).toBe(200);
    expectError(await call("POST", "/crm/v3/objects/contacts", { token: pa.token, body: { properties: {} } }), 403, "MISSING_SCOPES");
  });
});
