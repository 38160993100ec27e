#!/usr/bin/env node
// One command for local development (README): migrate the local D1, start `wrangler dev` and the demo
// integrator, seed a demo account through the public and operator APIs (scripts/demo/), and print what to open.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { startDemoIntegrator } from "./demo/integrator.mjs";
import { demoExists, pointCardAt, refreshAccessToken, seedDemo, summary } from "./demo/seed.mjs";

const PORT = Number(process.env.PORT ?? 8787);
const BASE = `http://localhost:${PORT}`;
const DEMO_FILE = ".wrangler/demo.json";
// The demo integrator answers the demo's CRM card on loopback (ALLOW_LOOPBACK_OUTBOUND below lets the Worker call it).
const INTEGRATOR_PORT = Number(process.env.DEMO_INTEGRATOR_PORT ?? PORT + 1);

if (!existsSync(".dev.vars")) copyFileSync(".dev.vars.example", ".dev.vars");
const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(".dev.vars", "utf8"))?.[1]?.trim();
if (!adminToken) throw new Error(".dev.vars must define ADMIN_TOKEN");

// The control plane and every shard of wrangler.toml (issue 16).
if (spawnSync("node", ["scripts/migrate.mjs", "--local"], { stdio: "inherit" }).status !== 0) process.exit(1);

const dev = spawn(
  "npx",
  // Webhook retries a few seconds apart instead of spread over a day (docs/webhooks.md).
  ["wrangler", "dev", "--port", String(PORT), "--test-scheduled", "--var", "ALLOW_LOOPBACK_OUTBOUND:true", "--var", "WEBHOOK_RETRY_BASE_SECONDS:5"],
  { stdio: ["inherit", "pipe", "inherit"] },
);
dev.stdout.pipe(process.stdout);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => dev.kill(sig));
dev.on("exit", (code) => process.exit(code ?? 0));

/** The app's client secret, once known: the demo integrator verifies every card request with it. */
let secret;
const integrator = await startDemoIntegrator({ port: INTEGRATOR_PORT, secret: () => secret, log: (l) => console.log(l) });

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

/**
 * The demo account (issue 19 §1): seeded through the API by scripts/demo/seed.mjs when the saved one is
 * missing from this database; otherwise reused, with a fresh OAuth access token and the card pointed at
 * this run's demo integrator.
 */
async function demoAccount() {
  let olderDemo = false;
  if (existsSync(DEMO_FILE)) {
    const saved = JSON.parse(readFileSync(DEMO_FILE, "utf8"));
    const exists = await demoExists(BASE, saved);
    if (exists && saved.cardTypeId) {
      secret = saved.clientSecret;
      await pointCardAt(BASE, saved, integrator.url);
      return saved;
    }
    // A demo seeded before issue 19 (no card) is still there: its user keeps demo@example.com, so the
    // new demo user gets an address of its own (sign-in is by email).
    olderDemo = exists;
  }
  console.log("Seeding the demo account through the API (about half a minute: the ecommerce sync goes through the queue)...");
  const userEmail = olderDemo ? `demo-${Date.now().toString(36)}@example.com` : undefined;
  const demo = await seedDemo({ baseUrl: BASE, adminToken, integratorUrl: integrator.url, userEmail, log: (l) => console.log(l), onSecret: (s) => (secret = s) });
  secret = demo.clientSecret;
  return demo;
}

await ready();
const demo = await demoAccount();
await refreshAccessToken(BASE, demo);
mkdirSync(".wrangler", { recursive: true });
writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2));
console.log(summary(BASE, demo, { adminToken, demoFile: DEMO_FILE, integratorUrl: integrator.url }));
