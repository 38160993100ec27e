/**
 * The shard hint in tokens (src/lib/token-hint.ts; docs/reference/accounts.md "Token format"): new
 * private-app and OAuth access tokens name their account's shard, a warm request reads nothing on the
 * control plane and a cold one reads the credential with its directory row in one statement, the hint never
 * decides anything (after a move, or forged, it changes no answer), and tokens without a hint work as before.
 */
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { forgetCredentials } from "../../src/lib/credential-cache";
import { randomToken, sha256Hex } from "../../src/lib/crypto";
import { hintedShard, shardHint } from "../../src/lib/token-hint";
import { admin, call, expectError, tenant } from "../helpers/api";
import { authorize, exchange, refresh } from "../helpers/oauth-flow";
import { credentialReads, recordedWorker } from "../helpers/session-recorder";
import { waitForMove } from "../helpers/shards";

const LIST = "/crm/v3/objects/contacts?limit=100";
/** What a client may send: the charset of the tokens the real service issues (base64url and hyphens). */
const TOKEN_CHARSET = /^[A-Za-z0-9_-]+$/;

describe("the shard hint", () => {
  beforeEach(() => forgetCredentials());

  it("names the shard in new private-app, installed, exchanged and refreshed access tokens", async () => {
    const t = await tenant({ shard: "SHARD_2" });
    expect(t.pat).toMatch(/^pat-na1-s2-[A-Za-z0-9_-]{43}$/);
    expect(t.oauth).toMatch(/^oat-s2-[A-Za-z0-9_-]{64}$/);
    const rotated = await admin("POST", `/admin/v1/accounts/${t.portalId}/private-apps/${t.privateAppId}/rotate`);
    expect(rotated.token).toMatch(/^pat-na1-s2-/);
    const exchanged = (await (await exchange(t, await authorize(t))).json()) as { access_token: string; refresh_token: string };
    expect(exchanged.access_token).toMatch(/^oat-s2-/);
    const refreshed = (await (await refresh(t, exchanged.refresh_token)).json()) as { access_token: string };
    expect(refreshed.access_token).toMatch(/^oat-s2-/);
    for (const token of [t.pat, t.oauth, rotated.token, exchanged.access_token, refreshed.access_token]) {
      expect(token).toMatch(TOKEN_CHARSET);
      expect(hintedShard(token)).toBe("SHARD_2");
    }
    // The refresh token is only ever sent to the token endpoint, which reads the control plane: no hint.
    expect(hintedShard(exchanged.refresh_token)).toBeUndefined();
  });

  it("reads s<n> for SHARD_<n>, s0 for the control plane, and nothing in tokens without a hint", () => {
    expect(shardHint("SHARD_17")).toBe("s17");
    expect(shardHint(null)).toBe("s0");
    expect(hintedShard("pat-na1-s0-abc")).toBeNull();
    expect(hintedShard("oat-s9999-abc")).toBe("SHARD_9999");
    for (const old of ["pat-na1-" + "x".repeat(43), "oat-" + "y".repeat(64), "pat-na1-s12" + "x".repeat(40), crypto.randomUUID()]) expect(hintedShard(old)).toBeUndefined();
  });

  it("a cold request reads the credential and its directory row in one statement, a warm one reads nothing", async () => {
    const { seen, ask } = recordedWorker();
    const t = await tenant({ shard: "SHARD_2" });
    for (const token of [t.pat, t.oauth]) {
      forgetCredentials();
      seen.length = 0;
      expect((await ask("GET", LIST, token)).status).toBe(200);
      expect(seen).toHaveLength(1); // the credential joined with accounts: no separate directory read
      expect(credentialReads(seen)).toHaveLength(1);
      expect(seen[0]!.sql).toContain('left join "accounts"');
      seen.length = 0;
      expect((await ask("GET", LIST, token)).status).toBe(200);
      expect(seen).toHaveLength(0);
    }
  });

  it("after the account moves, its tokens (naming the old shard) reach the new one", { timeout: 60_000 }, async () => {
    const t = await tenant({ shard: "SHARD_1" });
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "moved" } } });
    expect(made.status).toBe(201);
    await admin("POST", `/admin/v1/accounts/${t.portalId}/move`, { shard: "SHARD_2" });
    expect((await waitForMove(t.portalId)).shard).toBe("SHARD_2");
    forgetCredentials(); // as an isolate that has not seen the account before
    for (const token of [t.pat, t.oauth]) {
      expect(hintedShard(token)).toBe("SHARD_1");
      const listed = await call("GET", LIST, { token });
      expect(listed.status).toBe(200);
      expect(listed.json.results.map((r: { id: string }) => r.id)).toContain(made.json.id);
      expect((await call("POST", "/crm/v3/objects/contacts", { token, body: { properties: { firstname: "after" } } })).status).toBe(201);
    }
    const stale = await env.SHARD_1.prepare("select count(*) as n from crm_objects where portal_id = ?").bind(t.portalId).first<{ n: number }>();
    expect(stale!.n).toBe(0);
  });

  it("tokens issued without a hint keep working", async () => {
    const t = await tenant({ shard: "SHARD_1" });
    const pat = randomToken("pat-na1-", 32);
    const access = randomToken("oat-", 48);
    const installId = (await env.DB.prepare("select install_id as id from credentials where token_hash = ?").bind(await sha256Hex(t.oauth)).first<{ id: number }>())!.id;
    await env.DB.batch([
      env.DB.prepare("update credentials set token_hash = ? where private_app_id = ?").bind(await sha256Hex(pat), t.privateAppId),
      env.DB.prepare("insert into credentials (token_hash, kind, portal_id, app_id, install_id, scopes, expires_at) values (?, 'access', ?, ?, ?, ?, ?)").bind(
        await sha256Hex(access),
        t.portalId,
        t.appId,
        installId,
        JSON.stringify(["crm.objects.contacts.read"]),
        Date.now() + 600_000,
      ),
    ]);
    for (const token of [pat, access]) {
      expect(hintedShard(token)).toBeUndefined();
      expect((await call("GET", LIST, { token })).status).toBe(200);
    }
  });

  it("a forged hint reaches nothing: another shard's name makes an unknown token", async () => {
    const a = await tenant({ shard: "SHARD_1" });
    const b = await tenant({ shard: "SHARD_2" });
    expect((await call("POST", "/crm/v3/objects/contacts", { token: b.pat, body: { properties: { firstname: "b-only" } } })).status).toBe(201);
    const forged = [a.pat.replace("pat-na1-s1-", "pat-na1-s2-"), a.oauth.replace("oat-s1-", "oat-s2-"), `pat-na1-s2-${a.pat.slice("pat-na1-s1-".length)}`, randomToken("pat-na1-s2-", 32)];
    for (const token of forged) {
      expectError(await call("GET", LIST, { token }), 401, "INVALID_AUTHENTICATION");
      expectError(await call("POST", "/crm/v3/objects/contacts", { token, body: { properties: { firstname: "x" } } }), 401, "INVALID_AUTHENTICATION");
    }
    // The genuine tokens still see only their own account.
    expect((await call("GET", LIST, { token: a.pat })).json.results).toEqual([]);
    expect((await call("GET", LIST, { token: b.pat })).json.results).toHaveLength(1);
  });
});
