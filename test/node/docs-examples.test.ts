/**
 * The request examples of README.md and docs/ work against the demo of `npm run dev`: each one, found in the
 * markdown at test time (test/node/docs-examples.ts says which blocks are examples), is sent to the Worker
 * over HTTP, in the order of the files and of their blocks, with its placeholders filled from a demo account
 * seeded as `npm run dev` seeds it (scripts/demo/seed.mjs, its integrator answering the card), and must
 * succeed. So an example that clashes with the demo's data (a contact it already has) fails here as it
 * would for a reader. A broken example fails CI.
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { startDemoIntegrator } from "../../scripts/demo/integrator.mjs";
import { seedDemo, type Demo } from "../../scripts/demo/seed.mjs";
import { examplesOf, parseCurl, repositoryExamples, shellWords, type Example } from "./docs-examples";
import { workerUrl } from "./helpers";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EXAMPLES = repositoryExamples(ROOT);

let demo: Demo;
let operatorPortal: string;
let secret: string | undefined;
let integrator: { url: string; close: () => Promise<void> } | undefined;
beforeAll(async () => {
  integrator = await startDemoIntegrator({ secret: () => secret });
  demo = await seedDemo({ baseUrl: workerUrl(), adminToken: inject("adminToken"), integratorUrl: integrator.url, userEmail: `docs-${randomUUID().slice(0, 8)}@example.com` });
  secret = demo.clientSecret;
  // The operator guide's account examples (suspend, export, delete) act on an account of their own, never
  // on the demo's, which later examples use.
  const made = await fetch(`${workerUrl()}/admin/v1/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${inject("adminToken")}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "docs operator example" }),
  });
  operatorPortal = String(((await made.json()) as { portalId: number }).portalId);
}, 120_000);
afterAll(async () => {
  await integrator?.close();
});

/** Fills the placeholders the docs use: the local or deployed host, `$NAME` credentials, `{appId}`/`{portalId}`. */
function fill(text: string): string {
  const values: Record<string, string> = {
    ADMIN_TOKEN: inject("adminToken"),
    TOKEN: demo.oauthAccessToken,
    PRIVATE_APP_TOKEN: demo.privateAppToken,
    DEVELOPER_KEY: demo.developerKey,
    PORTAL_ID: String(demo.portalId),
    APP_ID: String(demo.appId),
    PORTAL: operatorPortal,
  };
  return text
    .replace(/^(http:\/\/localhost:8787|https:\/\/<worker>|\$BASE\b)/, workerUrl())
    .replace(/\$([A-Z_]+)\b/g, (m, name: string) => values[name] ?? m)
    .replace(/\{(appId|portalId)\}/g, (_m, name: string) => (name === "appId" ? String(demo.appId) : String(demo.portalId)));
}

function credentialHeader(e: Example): [string, string][] {
  if (!e.credential) return [];
  const token = { oauth: demo.oauthAccessToken, "private-app": demo.privateAppToken, "developer-key": demo.developerKey, admin: inject("adminToken") }[e.credential];
  return [["Authorization", `Bearer ${token}`]];
}

async function send(e: Example) {
  const url = fill(e.url);
  return fetch(url.startsWith("/") ? `${workerUrl()}${url}` : url, {
    method: e.method,
    headers: [...e.headers.map(([k, v]): [string, string] => [k, fill(v)]), ...credentialHeader(e)],
    body: e.body === undefined ? undefined : fill(e.body),
    redirect: "manual",
  });
}

describe("request examples of README.md and docs/, in order, against the demo", () => {
  it("finds the marked examples, in the README and in docs/", () => {
    const files = new Set(EXAMPLES.map((e) => e.where.split(":")[0]));
    expect(files).toContain("README.md");
    expect(files).toContain("docs/reference/ecommerce.md");
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(6);
  });

  it.each(EXAMPLES.map((e) => [`${e.where} ${e.method} ${e.url}`, e] as const))("%s succeeds", async (_name, e) => {
    const res = await send(e);
    const text = await res.text();
    expect(res.status, `${e.where}: ${res.status} ${text}`).toBeLessThan(400);
  });
});

describe("the examples parser", () => {
  it("splits shell words with quotes and comments", () => {
    expect(shellWords(`curl -X POST "http://x/a?b=1&c=2" -H 'A: b c' -d '{"n":"x y"}'  # note`)).toEqual([
      "curl", "-X", "POST", "http://x/a?b=1&c=2", "-H", "A: b c", "-d", '{"n":"x y"}',
    ]);
  });

  it("reads a curl line as a request, a JSON body making it a JSON POST", () => {
    expect(parseCurl(`curl -s https://<worker>/admin/v1/accounts -H "Authorization: Bearer $ADMIN_TOKEN" -d '{"name":"Acme"}'`, "x:1")).toEqual({
      where: "x:1",
      method: "POST",
      url: "https://<worker>/admin/v1/accounts",
      headers: [["Authorization", "Bearer $ADMIN_TOKEN"], ["Content-Type", "application/json"]],
      body: '{"name":"Acme"}',
    });
    expect(() => parseCurl("curl --upload-file x http://x/", "x:2")).toThrow("not supported");
  });

  it("takes only sh curl lines and json request blocks", () => {
    const md = ["```sh", "npm ci", "curl http://localhost:8787/a", "```", "```json", "{}", "```", "```json request PUT /b developer-key", '{"a":1}', "```"].join("\n");
    expect(examplesOf(md, "m.md").map((e) => [e.where, e.method, e.url, e.credential])).toEqual([
      ["m.md:3", "GET", "http://localhost:8787/a", undefined],
      ["m.md:8", "PUT", "/b", "developer-key"],
    ]);
    expect(() => examplesOf("```json request PUT\n{}\n```", "m.md")).toThrow("json request METHOD PATH");
  });

  it("an example the service refuses fails: a settings example without the required mappings", async () => {
    const [old] = examplesOf(
      [
        "```json request PUT /extensions/ecomm/v2/settings",
        '{ "enabled": true, "webhookUri": "https://shop.example.com/import", "mappings": { "CONTACT": { "properties": [',
        '  { "externalPropertyName": "customer_email", "servicePropertyName": "email", "dataType": "STRING" } ] } } }',
        "```",
      ].join("\n"),
      "old.md",
    );
    expect((await send(old!)).status).toBe(400);
  });

  it("an example that clashes with the demo's data fails: creating a contact the demo already has", async () => {
    const [clash] = examplesOf(
      [
        "```sh",
        `curl -s -X POST http://localhost:8787/crm/v3/objects/contacts -H "Authorization: Bearer $PRIVATE_APP_TOKEN" -d '{"properties":{"email":"grace@example.com"}}'`,
        "```",
      ].join("\n"),
      "clash.md",
    );
    expect((await send(clash!)).status).toBe(409);
  });
});
