/**
 * Sign-in in a real browser (Debian's Chromium through playwright-core): a sign-in form that another site's
 * page posts is refused and leaves no session (login CSRF), and a `next` that the browser would resolve to
 * another host lands on /app. The "other site" is the local integrator, which serves the attacker's page.
 */
import { describe, expect, it } from "vitest";
import { integratorPath } from "./clients";
import { integratorUrl, tenant, workerUrl } from "./helpers";
import { launch, received, script, signInAt } from "./browser";

const integrator = new URL(integratorUrl());

/** Runs `use` with a browser of its own (a fresh profile: no cookies). */
async function withBrowser(use: (b: Awaited<ReturnType<typeof launch>>) => Promise<void>) {
  const b = await launch();
  try {
    await use(b);
  } finally {
    await b.close();
  }
}

describe("sign-in in Chromium", () => {
  it.each([
    ["another site (localhost, not 127.0.0.1)", `http://localhost:${integrator.port}`],
    ["another origin of the same site (another port of 127.0.0.1)", integrator.origin],
  ])("a sign-in form auto-posted by a page of %s is refused and signs nobody in", async (_name, attacker) => {
    const t = await tenant();
    const path = integratorPath("attacker");
    const field = (name: string, value: string) => `<input name="${name}" value="${value}">`;
    await script(path, {
      headers: { "content-type": "text/html; charset=utf-8" },
      body: `<!doctype html><title>Win a prize</title><form method="post" action="${workerUrl()}/login">${field("email", t.userEmail)}${field("password", t.userPassword)}${field("next", "/app")}</form><script>document.forms[0].submit()</script>`,
    });
    await withBrowser(async (b) => {
      const page = await b.context.newPage();
      const posted = page.waitForResponse((r) => r.url() === `${workerUrl()}/login` && r.request().method() === "POST");
      await page.goto(`${attacker}${path}`);
      const res = await posted;
      expect(res.status()).toBe(403);
      expect(await res.headerValue("set-cookie")).toBeNull();
      expect(await page.getByRole("alert").textContent()).toContain("sent from another site");
      expect((await b.context.cookies(workerUrl())).map((c) => c.name)).not.toContain("crm_session");
      // The same user signing in on the page itself is let in.
      await page.getByLabel("Email").fill(t.userEmail);
      await page.getByLabel("Password").fill(t.userPassword);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${workerUrl()}/app`);
      expect((await b.context.cookies(workerUrl())).map((c) => c.name)).toContain("crm_session");
    });
  });

  it.each([
    ["a backslash", (host: string, path: string) => `/\\${host}${path}`],
    ["a tab inside //", (host: string, path: string) => `/\t/${host}${path}`],
    ["an absolute URL", (host: string, path: string) => `http://${host}${path}`],
  ])("a next that leads to another host through %s lands on /app", async (_name, next) => {
    const t = await tenant();
    const landing = integratorPath("landing");
    await withBrowser(async (b) => {
      const page = await b.context.newPage();
      await page.goto(`${workerUrl()}/login?next=${encodeURIComponent(next(integrator.host, landing))}`);
      await page.getByLabel("Email").fill(t.userEmail);
      await page.getByLabel("Password").fill(t.userPassword);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${workerUrl()}/app`);
    });
    expect(await received(landing)).toEqual([]);
  });

  it("a next on the app is followed", async () => {
    const t = await tenant();
    await withBrowser(async (b) => {
      const page = await b.context.newPage();
      await signInAt(page, t, "/app/contacts?q=zo%C3%AB");
      expect(new URL(page.url()).searchParams.get("q")).toBe("zoë");
    });
  });
});
