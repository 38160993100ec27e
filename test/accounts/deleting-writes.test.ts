/**
 * While an account is being deleted, every operator write to it answers 409 (as its move, export and
 * suspension do) and adds nothing: no private app, user or install appears, none is changed or removed.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, admin, call, expectError, tenant, unique } from "../helpers/api";

describe("operator writes to an account that is being deleted", () => {
  it("answer 409 CONFLICT naming the deletion, and write nothing", { timeout: 90_000 }, async () => {
    const t = await tenant();
    const other = await admin("POST", "/admin/v1/apps", { name: unique("app"), redirectUris: ["https://app.example.com/callback"] });
    const count = async (table: string) => (await env.DB.prepare(`select count(*) as n from ${table} where portal_id = ?`).bind(t.portalId).first<number>("n")) ?? 0;
    const before = { privateApps: await count("private_apps"), users: await count("users"), installs: await count("installs") };
    const passwordHash = () => env.DB.prepare("select password_hash as h from users where user_id = ?").bind(t.userId).first<string>("h");
    const hashBefore = await passwordHash();

    expect((await call("DELETE", `/admin/v1/accounts/${t.portalId}`, { token: ADMIN })).status).toBe(202);
    const writes: [string, string, unknown?][] = [
      ["POST", `/admin/v1/accounts/${t.portalId}/private-apps`, { name: "late" }],
      ["POST", `/admin/v1/accounts/${t.portalId}/users`, { email: `${unique("late")}@example.com`, password: "correct horse battery" }],
      ["POST", `/admin/v1/accounts/${t.portalId}/installs`, { appId: other.appId }],
      ["DELETE", `/admin/v1/accounts/${t.portalId}/installs/${t.appId}`],
      ["POST", `/admin/v1/accounts/${t.portalId}/private-apps/${t.privateAppId}/rotate`],
      ["DELETE", `/admin/v1/accounts/${t.portalId}/private-apps/${t.privateAppId}`],
      ["POST", `/admin/v1/accounts/${t.portalId}/users/${t.userId}/password`, { password: "another horse battery" }],
      ["DELETE", `/admin/v1/accounts/${t.portalId}/users/${t.userId}`],
    ];
    for (const [method, path, body] of writes) {
      const res = await call(method, path, { token: ADMIN, body });
      const err = expectError(res, 409, "CONFLICT");
      expect(err.message, `${method} ${path}`).toBe(`Account ${t.portalId} is being deleted`);
    }
    // Only what the deletion itself removes may have gone meanwhile; nothing was added or changed.
    expect(await count("private_apps")).toBeLessThanOrEqual(before.privateApps);
    expect(await count("users")).toBeLessThanOrEqual(before.users);
    expect(await count("installs")).toBeLessThanOrEqual(before.installs);
    expect(await env.DB.prepare("select count(*) as n from installs where app_id = ?").bind(other.appId).first<number>("n")).toBe(0);
    const hashAfter = await passwordHash();
    if (hashAfter !== null) expect(hashAfter).toBe(hashBefore);
  });
});
