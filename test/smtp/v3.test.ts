/** SMTP API tokens v3 (`/marketing/v3/transactional/smtp-tokens`): the v1 tokens, the v3 way, with the v1 rules. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifySmtpCredentials } from "../../src/services/smtp/tokens";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { TOKENS } from "../blog/helpers";

const V3 = "/marketing/v3/transactional/smtp-tokens";
const ADDON = { addons: ["transactional-email"] };

async function createV3(t: Tenant, body: Record<string, unknown> = {}) {
  const res = await call("POST", V3, { token: t.oauth, body: { createContact: true, campaignName: "Receipts", ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

describe("SMTP API tokens v3", () => {
  it("creates (201) with the password once, reads and lists without it, resets and deletes (204)", async () => {
    const t = await tenant(ADDON);
    const token = await createV3(t);
    expect(token).toMatchObject({ createContact: true, campaignName: "Receipts", createdBy: `app-${t.appId}` });
    expect(token.id).toMatch(new RegExp(`^[a-z0-9]{10}@${t.portalId}\\.smtp\\.crm-edge\\.local$`));
    expect(token.password).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(token.emailCampaignId).toMatch(/^\d+$/);
    expect(new Date(token.createdAt).toISOString()).toBe(token.createdAt);
    expect((await verifySmtpCredentials(env, token.id, token.password)).ok).toBe(true);

    const read = await call("GET", `${V3}/${encodeURIComponent(token.id)}`, { token: t.oauth });
    expect(read.status).toBe(200);
    const { password: _password, ...withoutPassword } = token;
    expect(read.json).toEqual(withoutPassword);

    const reset = await call("POST", `${V3}/${encodeURIComponent(token.id)}/password-reset`, { token: t.oauth });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json.password).not.toBe(token.password);
    expect((await verifySmtpCredentials(env, token.id, token.password)).ok).toBe(false);
    expect((await verifySmtpCredentials(env, token.id, reset.json.password)).ok).toBe(true);
    const list = await call("GET", V3, { token: t.oauth });
    expect(list.json).toEqual({ results: [withoutPassword] });
    expect(list.text).not.toContain(reset.json.password);

    expect((await call("DELETE", `${V3}/${encodeURIComponent(token.id)}`, { token: t.oauth })).status).toBe(204);
    expectError(await call("GET", `${V3}/${encodeURIComponent(token.id)}`, { token: t.oauth }), 404, "OBJECT_NOT_FOUND");
    expect((await verifySmtpCredentials(env, token.id, reset.json.password)).ok).toBe(false);
  });

  it("is the v1 token in both directions", async () => {
    const t = await tenant(ADDON);
    const v1 = await call("POST", TOKENS, { token: t.oauth, body: { campaignName: "From v1", createContact: false } });
    const v3 = await createV3(t, { campaignName: "From v3" });
    const list = await call("GET", V3, { token: t.oauth });
    expect(list.json.results.map((r: { id: string }) => r.id)).toEqual([v1.json.userName, v3.id]);
    expect(list.json.results[0]).toMatchObject({
      emailCampaignId: String(v1.json.emailCampaignId),
      createdAt: new Date(v1.json.createdAt).toISOString(),
      campaignName: "From v1",
      createContact: false,
    });
    const listed = (await call("GET", TOKENS, { token: t.oauth })).json as { userName: string; emailCampaignId: number }[];
    expect(listed.find((r) => r.userName === v3.id)?.emailCampaignId).toBe(Number(v3.emailCampaignId));
    // A delete on one face is a delete on the other.
    expect((await call("DELETE", `${TOKENS}/${encodeURIComponent(v3.id)}`, { token: t.oauth })).status).toBe(204);
    expectError(await call("GET", `${V3}/${encodeURIComponent(v3.id)}`, { token: t.oauth }), 404, "OBJECT_NOT_FOUND");
  });

  it("pages with after and filters on campaignName and emailCampaignId", async () => {
    const t = await tenant(ADDON);
    const a = await createV3(t, { campaignName: "A" });
    const b = await createV3(t, { campaignName: "B" });
    const c = await createV3(t, { campaignName: "A" });
    const first = await call("GET", `${V3}?limit=2`, { token: t.oauth });
    expect(first.json.results.map((r: { id: string }) => r.id)).toEqual([a.id, b.id]);
    const after = first.json.paging.next.after as string;
    expect(first.json.paging.next.link).toContain(`after=${after}`);
    const second = await call("GET", `${V3}?limit=2&after=${after}`, { token: t.oauth });
    expect(second.json.results.map((r: { id: string }) => r.id)).toEqual([c.id]);
    expect(second.json.paging).toBeUndefined();
    const byName = await call("GET", `${V3}?campaignName=A`, { token: t.oauth });
    expect(byName.json.results.map((r: { id: string }) => r.id)).toEqual([a.id, c.id]);
    const byCampaign = await call("GET", `${V3}?emailCampaignId=${b.emailCampaignId}`, { token: t.oauth });
    expect(byCampaign.json.results.map((r: { id: string }) => r.id)).toEqual([b.id]);
  });

  it.each([
    ["POST", V3, { campaignName: "x" }, "createContact"],
    ["POST", V3, { createContact: true, campaignName: " " }, "campaignName"],
    ["POST", V3, { createContact: "yes", campaignName: "x" }, "createContact"],
    ["GET", `${V3}?limit=101`, undefined, "limit must be at most 100"],
    ["GET", `${V3}?limit=0`, undefined, "limit"],
    ["GET", `${V3}?after=abc`, undefined, "after"],
    ["GET", `${V3}?emailCampaignId=x`, undefined, "emailCampaignId"],
    ["GET", `${V3}/abc%E0%A4%A`, undefined, "tokenId"],
  ])("%s %s with bad input answers 400 naming %s", async (method, path, body, field) => {
    const t = await tenant(ADDON);
    const err = expectError(await call(method, path, { token: t.oauth, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
    const rows = await (await accountD1(t.portalId)).prepare("select count(*) as n from smtp_tokens where portal_id = ?").bind(t.portalId).first<{ n: number }>();
    expect(rows!.n).toBe(0);
  });

  it("keeps the add-on, OAuth-only and scope rules, and each account's tokens to itself", async () => {
    const a = await tenant(ADDON);
    const token = await createV3(a);
    const id = encodeURIComponent(token.id);
    const routes: [string, string, unknown?][] = [
      ["POST", V3, { createContact: false, campaignName: "x" }],
      ["GET", V3],
      ["GET", `${V3}/${id}`],
      ["POST", `${V3}/${id}/password-reset`],
      ["DELETE", `${V3}/${id}`],
    ];
    const noAddon = await tenant();
    const noScope = await tenant({ ...ADDON, scopes: ["content"] });
    for (const [method, path, body] of routes) {
      expectError(await call(method, path, { body, token: a.pat }), 403, "FORBIDDEN");
      expectError(await call(method, path, { body, token: a.developerKey }), 403, "FORBIDDEN");
      expectError(await call(method, path, { body, token: noScope.oauth }), 403, "MISSING_SCOPES");
      expect(expectError(await call(method, path, { body, token: noAddon.oauth }), 403, "FORBIDDEN").message).toContain("add-on");
    }
    const b = await tenant(ADDON);
    expect((await call("GET", V3, { token: b.oauth })).json).toEqual({ results: [] });
    for (const [method, path] of routes.slice(2)) expectError(await call(method, path, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
    expect((await verifySmtpCredentials(env, token.id, token.password)).ok).toBe(true);
  });
});
