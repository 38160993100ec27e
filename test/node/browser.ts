/**
 * The user's Chrome or Chromium (CHROMIUM_PATH, else one on PATH; scripts/find-browser.mjs) driven by
 * playwright-core for the browser tests. A missing browser fails each browser test with one line saying
 * what to install, never a skip: the record page is only tested in a real browser. The other test files
 * do not depend on it.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser as PlaywrightBrowser, type BrowserContext, type Page } from "playwright-core";
import { afterAll } from "vitest";
import { integratorUrl, workerUrl, type NodeTenant } from "./helpers";
import type { Script } from "../integrator/types";
import { findBrowser } from "../../scripts/find-browser.mjs";

export const SCREENSHOTS = resolve("test-results/screenshots");

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close: () => Promise<void>;
}

/**
 * One Chromium per test file, started by the file's first launch() and closed after its last test: starting
 * the browser is most of a short browser test's cost, and a context of its own gives each test what a new
 * profile would (no cookies, no storage, no cache).
 */
let running: Promise<PlaywrightBrowser> | undefined;
afterAll(async () => {
  const browser = running;
  running = undefined;
  await (await browser?.catch(() => undefined))?.close();
});

/** A fresh browser context (a new, empty profile), English locale and UTC so formatted values are stable. */
export async function launch(): Promise<Browser> {
  const browser = findBrowser();
  // One line, without a stack: it is what the test report shows for every browser test.
  if ("error" in browser) throw Object.assign(new Error(browser.error), { stack: browser.error });
  running ??= chromium.launch({ executablePath: browser.path, headless: true, args: ARGS });
  const context = await (await running).newContext({ locale: "en-US", timezoneId: "UTC", viewport: { width: 1280, height: 900 } });
  return { context, close: () => context.close() };
}

/** Signs in through the real form, arriving at `path` (signed-out visitors are sent to /login?next=). */
export async function signInAt(page: Page, t: NodeTenant, path: string) {
  await page.goto(`${workerUrl()}${path}`);
  await page.getByLabel("Email").fill(t.userEmail);
  await page.getByLabel("Password").fill(t.userPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${workerUrl()}${path}`);
}

/** A screenshot under test-results/screenshots/ (the whole page unless `fullPage` is false, e.g. with a modal open). */
export async function screenshot(page: Page, name: string, fullPage = true) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, name), fullPage });
}

/** Tells the local integrator how to answer `path`. */
export async function script(path: string, s: Script) {
  const res = await fetch(`${integratorUrl()}/__script`, { method: "POST", body: JSON.stringify({ path, ...s }) });
  if (res.status !== 204) throw new Error(`script ${path} failed: ${res.status}`);
}

export async function received(path: string): Promise<{ method: string; url: string; body: string }[]> {
  return (await (await fetch(`${integratorUrl()}/__requests?path=${encodeURIComponent(path)}`)).json()) as { method: string; url: string; body: string }[];
}

/**
 * A page the integrator serves as HTML: its Done and Cancel buttons post a JSON string whose `action` is
 * DONE or CANCEL to the parent window, which closes the modal.
 */
export function iframePage(title: string, extraScript = ""): Script {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>
<h1>${title}</h1><p>Integrator page.</p>
<button id="done" type="button">Done</button> <button id="cancel" type="button">Cancel</button>
<script>
document.getElementById("done").addEventListener("click", () => window.parent.postMessage(JSON.stringify({ action: "DONE" }), "*"));
document.getElementById("cancel").addEventListener("click", () => window.parent.postMessage(JSON.stringify({ action: "CANCEL" }), "*"));
${extraScript}
</script></body></html>`;
  return { body, headers: { "content-type": "text/html; charset=utf-8" } };
}
