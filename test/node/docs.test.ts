/**
 * The API reference page in a real browser: GET /docs renders every operation of
 * /openapi.json with Swagger UI served from this origin, makes no request that leaves the origin, breaks
 * no rule of its Content-Security-Policy, and the web app's header links to it.
 */
import { describe, expect, it } from "vitest";
import { launch, screenshot, signInAt } from "./browser";
import { tenant, workerUrl } from "./helpers";

/** How long Swagger UI may take to show the document's first operation. */
const RENDER_MS = 120_000;

describe("GET /docs in Chromium", () => {
  it("shows every operation, its parameters, responses and errors, loading nothing from another origin", async () => {
    const doc = (await (await fetch(`${workerUrl()}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(operations).toBeGreaterThan(50);

    const b = await launch();
    try {
      const page = await b.context.newPage();
      const requested: string[] = [];
      const problems: string[] = [];
      page.on("request", (r) => requested.push(r.url()));
      // The favicon is checked by the demo test (test/node/demo.test.ts); any other failed load or console error counts.
      page.on("response", (r) => {
        if (r.status() >= 400 && new URL(r.url()).pathname !== "/favicon.ico") problems.push(`${r.status()} ${r.url()}`);
      });
      page.on("console", (m) => {
        if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(m.text());
      });
      page.on("pageerror", (e) => problems.push(e.message));
      const res = await page.goto(`${workerUrl()}/docs`);
      expect(res?.status()).toBe(200);
      // Swagger UI reads the whole document (900 KB) before it shows anything: seconds on an idle machine, and
      // far longer beside the rest of the suite on two cores.
      await page.locator(".opblock").first().waitFor({ timeout: RENDER_MS });
      // Swagger UI keeps only the operations near the viewport of a long document in the page: scroll through
      // it, collecting every operation shown (method and path), until the end shows nothing new.
      const seen = new Set<string>();
      for (let stale = 0, y = 0; stale < 3 && y < 2_000; y++) {
        const before = seen.size;
        for (const op of await page.locator(".opblock").evaluateAll((els) => els.map((e) => `${e.querySelector(".opblock-summary-method")?.textContent} ${e.querySelector(".opblock-summary-path")?.textContent}`))) seen.add(op);
        const atEnd = await page.evaluate("window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2");
        stale = atEnd && seen.size === before ? stale + 1 : 0;
        await page.mouse.wheel(0, 600);
        await page.waitForTimeout(50);
      }
      expect(seen.size).toBe(operations);
      expect(seen).toContain("PATCH /crm/v3/objects/{objectType}/{objectId}");
      await page.evaluate("window.scrollTo(0, 0)");
      await screenshot(page, "docs-top.png", false);

      // One operation opened, scrolled to as a reader would: its parameters, its body, its success response
      // and the error envelope.
      const patch = page.locator(".opblock-patch").filter({ hasText: "/crm/v3/objects/{objectType}/{objectId}" }).first();
      for (let y = 0; y < 2_000 && !(await patch.count()); y++) {
        await page.mouse.wheel(0, 600);
        await page.waitForTimeout(50);
      }
      await patch.scrollIntoViewIfNeeded();
      await patch.locator(".opblock-summary").click();
      const body = patch.locator(".opblock-body");
      await body.waitFor();
      await expect.poll(() => body.innerText()).toContain("objectId");
      const text = await body.innerText();
      expect(text).toContain("Request body");
      for (const status of ["200", "400", "401", "404", "429", "500"]) expect(text).toContain(status);
      expect(text).toContain("OBJECT_NOT_FOUND");
      await screenshot(page, "docs.png", false);

      const origin = new URL(workerUrl()).origin;
      const foreign = requested.filter((u) => !u.startsWith("data:") && new URL(u).origin !== origin);
      expect(foreign).toEqual([]);
      expect(requested).toContain(`${origin}/vendor/swagger-ui/swagger-ui-bundle.js`);
      expect(requested).toContain(`${origin}/openapi.json`);
      expect(problems).toEqual([]); // no CSP refusal, no script error
    } finally {
      await b.close();
    }
  }, 4 * RENDER_MS);

  it("is linked from the web app's header", async () => {
    const t = await tenant();
    const b = await launch();
    try {
      const page = await b.context.newPage();
      await signInAt(page, t, "/app/contacts");
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API reference" }).click();
      await page.waitForURL(`${workerUrl()}/docs`);
      // The page it opens is the reference: the test above waits for Swagger UI to render it, which takes
      // a browser many seconds of work on the whole document, so here its title and container are enough.
      expect(await page.title()).toBe("API reference · crm-edge");
      await page.locator("main#swagger-ui").waitFor({ state: "attached" });
    } finally {
      await b.close();
    }
  }, 4 * RENDER_MS);
});
