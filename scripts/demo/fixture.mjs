// @ts-check
/**
 * @module `FIXTURE=path npm run dev`: a test account of its own (accountType DEVELOPER_TEST, so the test
 * kit's controls work on it) with a private app, loaded with the fixture document at `path` through the
 * operator API (docs/reference/testkit.md, "Fixtures"). A new account on every start, so a fixture whose
 * contacts have emails loads again without clashing with the last start's.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { call } from "./seed.mjs";

/**
 * @param {{ baseUrl: string, adminToken: string, path: string }} o
 * @returns {Promise<{ portalId: number, privateAppToken: string, refs: Record<string, string>, counts: Record<string, number> }>}
 */
export async function loadFixtureAccount(o) {
  let doc;
  try {
    doc = JSON.parse(readFileSync(o.path, "utf8"));
  } catch (e) {
    throw new Error(`FIXTURE=${o.path}: ${e instanceof Error ? e.message : e}`);
  }
  const account = await call(o.baseUrl, "POST", "/admin/v1/accounts", o.adminToken, { name: `Fixture ${basename(o.path)}`, accountType: "DEVELOPER_TEST" });
  const app = await call(o.baseUrl, "POST", `/admin/v1/accounts/${account.portalId}/private-apps`, o.adminToken, { name: "fixture" });
  const loaded = await call(o.baseUrl, "POST", `/admin/v1/accounts/${account.portalId}/fixtures`, o.adminToken, doc);
  return { portalId: account.portalId, privateAppToken: app.token, refs: loaded.refs, counts: loaded.counts };
}
