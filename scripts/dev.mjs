#!/usr/bin/env node
// One command for local development (README): migrate the local D1, start `wrangler dev` and the demo
// integrator, seed a demo account through the public and operator APIs (scripts/demo/), and print what to open.
// With FIXTURE=<path>, also a test account loaded with that fixture document (scripts/demo/fixture.mjs).
//
// Quiet by design, so what to open is not lost in the noise: the terminal gets a few progress lines and the
// summary, last; migrations, wrangler's output (banners, request logs) and the integrator's log go to
// LOG_FILE, named on the first line.
// Ctrl-C and SIGTERM (to this process or to npm) stop everything: wrangler runs in its own process group (workerd included), which is
// sent SIGTERM, then SIGKILL if it is still there after STOP_GRACE_MS, so the Worker stops answering at once.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { setInterval } from "node:timers";
import { startDemoIntegrator } from "./demo/integrator.mjs";
import { loadFixtureAccount } from "./demo/fixture.mjs";
import { demoExists, pointCardAt, refreshAccessToken, seedDemo, summary } from "./demo/seed.mjs";
import { startSmtpServer } from "./smtp-server.mjs";

const PORT = Number(process.env.PORT ?? 8787);
const BASE = `http://localhost:${PORT}`;
const DEMO_FILE = ".wrangler/demo.json";
const LOG_FILE = ".wrangler/dev.log";
const STOP_GRACE_MS = 2_000;
// The demo integrator answers the demo's CRM card on loopback (ALLOW_LOOPBACK_OUTBOUND below lets the Worker call it).
const INTEGRATOR_PORT = Number(process.env.DEMO_INTEGRATOR_PORT ?? PORT + 1);
// The local SMTP endpoint (scripts/smtp-server.mjs), loopback only: mail sent with an account's SMTP API token.
const SMTP_PORT = Number(process.env.SMTP_PORT ?? 2525);

/** Whether nothing listens on the port, on either loopback address (wrangler binds "localhost"). */
async function portFree(port) {
  for (const host of ["127.0.0.1", "::1"]) {
    const free = await new Promise((resolve) => {
      const probe = createServer();
      probe.once("error", (/** @type {NodeJS.ErrnoException} */ err) => resolve(err.code !== "EADDRINUSE"));
      probe.listen(port, host, () => probe.close(() => resolve(true)));
    });
    if (!free) return false;
  }
  return true;
}
for (const [port, variable] of [[PORT, "PORT"], [INTEGRATOR_PORT, "DEMO_INTEGRATOR_PORT"], [SMTP_PORT, "SMTP_PORT"]]) {
  if (!(await portFree(port))) {
    console.error(`crm-edge: port ${port} is already in use by another program. Choose another with ${variable}, e.g. ${variable}=${port + 10} npm run dev`);
    process.exit(1);
  }
}

if (!existsSync(".dev.vars")) copyFileSync(".dev.vars.example", ".dev.vars");
const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(".dev.vars", "utf8"))?.[1]?.trim();
if (!adminToken) throw new Error(".dev.vars must define ADMIN_TOKEN");

mkdirSync(".wrangler", { recursive: true });
const logFd = openSync(LOG_FILE, "w");
const log = (/** @type {string} */ line) => writeSync(logFd, `${line}\n`);
console.log(`crm-edge: starting on ${BASE} (the full output goes to ${LOG_FILE})`);

// The control plane and every shard of wrangler.toml.
log("== npm run migrate -- --local");
if (spawnSync(process.execPath, ["scripts/migrate.mjs", "--local"], { stdio: ["ignore", logFd, logFd] }).status !== 0) {
  console.error(`crm-edge: migrating the local databases failed; see ${LOG_FILE}`);
  process.exit(1);
}

log(`== wrangler dev --port ${PORT}`);
// The package's exports hide bin/, so the script is found through its package.json's "bin".
const wranglerPkg = createRequire(import.meta.url).resolve("wrangler/package.json");
const wranglerBin = join(dirname(wranglerPkg), JSON.parse(readFileSync(wranglerPkg, "utf8")).bin.wrangler);
const dev = spawn(
  process.execPath,
  [wranglerBin, "dev", "--port", String(PORT), "--test-scheduled", "--var", "ALLOW_LOOPBACK_OUTBOUND:true", "--var", "WEBHOOK_RETRY_BASE_SECONDS:5"],
  // Its own process group (detached), so stopping it reaches workerd too; no terminal, so no hotkey prompt.
  { stdio: ["ignore", logFd, logFd], detached: true, env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
);

let integrator;
/** @type {Awaited<ReturnType<typeof startSmtpServer>> | undefined} */
let smtp;
let stopping = false;
/** Stops wrangler's whole process group and the integrator, then exits with `code`. */
async function stop(code) {
  if (stopping) return;
  stopping = true;
  const group = (/** @type {NodeJS.Signals} */ sig) => {
    try {
      process.kill(-(dev.pid ?? 0), sig);
    } catch {
      // already gone
    }
  };
  if (dev.exitCode === null && dev.signalCode === null) {
    const exited = new Promise((r) => dev.once("exit", r));
    group("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, STOP_GRACE_MS))]);
  }
  group("SIGKILL"); // workerd children that outlived wrangler, if any
  await integrator?.close();
  await smtp?.close();
  closeSync(logFd);
  process.exit(code);
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    console.log("\ncrm-edge: stopping");
    void stop(0);
  });
}
// `npm run dev` runs this script under `sh -c`, and a SIGTERM sent to npm ends npm and sh but does not reach
// this process: when the parent goes away, stop as if signalled.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop(0);
}, 250).unref();
dev.on("exit", (code) => {
  if (stopping) return;
  console.error(`crm-edge: wrangler dev exited (${code ?? "signal"}); see ${LOG_FILE}`);
  void stop(code || 1);
});

/** The app's client secret, once known: the demo integrator verifies every card request with it. */
let secret;

async function ready() {
  for (let i = 0; i < 240; i++) {
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
 * The demo account: seeded through the API by scripts/demo/seed.mjs when the saved one is missing from this
 * database; otherwise reused, with a fresh OAuth access token and the card pointed at this run's integrator.
 */
async function demoAccount() {
  let olderDemo = false;
  if (existsSync(DEMO_FILE)) {
    const saved = JSON.parse(readFileSync(DEMO_FILE, "utf8"));
    const exists = await demoExists(BASE, saved);
    if (exists && saved.cardTypeId && saved.userId) {
      secret = saved.clientSecret;
      await pointCardAt(BASE, saved, integrator.url);
      return saved;
    }
    // A saved demo without a card type or user id is still there: its user keeps demo@example.com, so the
    // new demo user gets an address of its own (sign-in is by email).
    olderDemo = exists;
  }
  console.log("crm-edge: seeding the demo account through the API (about half a minute)...");
  const userEmail = olderDemo ? `demo-${Date.now().toString(36)}@example.com` : undefined;
  const demo = await seedDemo({ baseUrl: BASE, adminToken, integratorUrl: integrator.url, userEmail, log, onSecret: (s) => (secret = s) });
  secret = demo.clientSecret;
  return demo;
}

try {
  integrator = await startDemoIntegrator({ port: INTEGRATOR_PORT, secret: () => secret, log });
  await ready();
  smtp = await startSmtpServer({ apiBase: BASE, adminToken, port: SMTP_PORT, log });
  const demo = await demoAccount();
  await refreshAccessToken(BASE, demo);
  writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2));
  // On a second start the demo's pending order may already be abandoned: the summary says which.
  const pending = await fetch(`${BASE}/crm/v3/objects/deals/${demo.pendingDealId}?properties=dealstage`, { headers: { authorization: `Bearer ${demo.privateAppToken}` } });
  const pendingAbandoned = pending.ok && (await pending.json()).properties?.dealstage === "checkout_abandoned";
  console.log(summary(BASE, demo, { adminToken, demoFile: DEMO_FILE, logFile: LOG_FILE, integratorUrl: integrator.url, pendingAbandoned, smtp }));
  if (process.env.FIXTURE) {
    const f = await loadFixtureAccount({ baseUrl: BASE, adminToken, path: process.env.FIXTURE });
    const made = Object.entries(f.counts).map(([k, n]) => `${n} ${k}`).join(", ");
    console.log(`\nFixture ${process.env.FIXTURE}: account ${f.portalId} (DEVELOPER_TEST) holds ${made}`);
    console.log(`  PRIVATE_APP_TOKEN=${f.privateAppToken}`);
    console.log(`  refs: ${JSON.stringify(f.refs)}`);
  }
} catch (e) {
  console.error(`crm-edge: ${e instanceof Error ? e.message : e}; see ${LOG_FILE}`);
  await stop(1);
}
