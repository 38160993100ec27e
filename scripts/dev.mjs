#!/usr/bin/env node
// One command for local development (README): migrate the local D1, start `wrangler dev`, seed a demo
// account through the operator API (the same path operators and tests use), and print how to call it.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

const PORT = Number(process.env.PORT ?? 8787);
const BASE = `http://localhost:${PORT}`;
const DEMO_FILE = ".wrangler/demo.json";

if (!existsSync(".dev.vars")) copyFileSync(".dev.vars.example", ".dev.vars");
const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(".dev.vars", "utf8"))?.[1]?.trim();
if (!adminToken) throw new Error(".dev.vars must define ADMIN_TOKEN");

const wrangler = (args, opts = {}) => spawnSync("npx", ["wrangler", ...args], { stdio: "inherit", ...opts });
if (wrangler(["d1", "migrations", "apply", "DB", "--local"], { env: { ...process.env, CI: "true" } }).status !== 0) process.exit(1);

const dev = spawn(
  "npx",
  ["wrangler", "dev", "--port", String(PORT), "--test-scheduled", "--var", "ALLOW_LOOPBACK_OUTBOUND:true"],
  { stdio: ["inherit", "pipe", "inherit"] },
);
dev.stdout.pipe(process.stdout);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => dev.kill(sig));
dev.on("exit", (code) => process.exit(code ?? 0));

async function api(method, path, token, body) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function ready() {
  for (let i = 0; i < 120; i++) {
    try {
      await fetch(`${BASE}/openapi.json`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error("wrangler dev did not start");
}

async function seed() {
  if (existsSync(DEMO_FILE)) {
    const demo = JSON.parse(readFileSync(DEMO_FILE, "utf8"));
    const check = await fetch(`${BASE}/crm/v3/objects/contacts?limit=1`, { headers: { authorization: `Bearer ${demo.privateAppToken}` } });
    if (check.ok) return demo;
  }
  const account = await api("POST", "/admin/v1/accounts", adminToken, { name: "Demo account", addons: ["transactional-email"] });
  const app = await api("POST", "/admin/v1/apps", adminToken, { name: "Demo app", redirectUris: [`${BASE}/oauth-callback`] });
  const pat = await api("POST", `/admin/v1/accounts/${account.portalId}/private-apps`, adminToken, { name: "Demo private app" });
  const install = await api("POST", `/admin/v1/accounts/${account.portalId}/installs`, adminToken, { appId: app.appId });
  const user = await api("POST", `/admin/v1/accounts/${account.portalId}/users`, adminToken, { email: "demo@example.com", password: "demo-password" });
  for (const [first, last, email] of [["Ada", "Lovelace", "ada@example.com"], ["Alan", "Turing", "alan@example.com"]]) {
    await api("POST", "/crm/v3/objects/contacts", pat.token, { properties: { firstname: first, lastname: last, email } });
  }
  const demo = {
    portalId: account.portalId,
    appId: app.appId,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    developerKey: app.developerKey,
    privateAppToken: pat.token,
    oauthAccessToken: install.access_token,
    oauthRefreshToken: install.refresh_token,
    userEmail: user.email,
    userPassword: "demo-password",
  };
  mkdirSync(".wrangler", { recursive: true });
  writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2));
  return demo;
}

await ready();
const demo = await seed();
console.log(`
crm-edge is running at ${BASE}  (operator token: ${adminToken}; demo credentials saved in ${DEMO_FILE})
  account (portalId)   ${demo.portalId}
  private app token    ${demo.privateAppToken}
  app ${demo.appId} developer key  ${demo.developerKey}
  OAuth access token   ${demo.oauthAccessToken}  (expires after 30 minutes; refresh with the refresh token)
  sign in at ${BASE}/login as ${demo.userEmail} / ${demo.userPassword}  (record pages, timelines, CRM cards and stores under ${BASE}/app)

Try:
  curl -s '${BASE}/contacts/v1/lists/all/contacts/all?count=10' -H 'Authorization: Bearer ${demo.privateAppToken}'
  curl -s ${BASE}/openapi.json
`);
