/**
 * An accessibility audit of a page in the browser tests: axe-core, the engine behind Lighthouse's
 * accessibility score, run in the page as it is shown. It checks what a person using a keyboard or a
 * screen reader meets: every control has a label, text has enough contrast, headings and landmarks are in
 * order, ids are unique, nothing hides focus. The page's CSP forbids injected scripts, so the engine is
 * evaluated through the browser's debugging protocol, which the CSP does not govern.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const source = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * The page's violations of WCAG 2.1 A and AA and axe's best practices, as short lines a test can show.
 * `exclude` names selectors that are not the app's own (an integrator's iframe, say).
 */
export async function audit(page: Page, exclude: string[] = []): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(source);
  const violations = await page.evaluate(async (exclude: string[]) => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(
      { include: [["html"]], exclude: exclude.map((s) => [s]) },
      { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] }, resultTypes: ["violations"] },
    );
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
  }, exclude);
  return violations.map((v: Violation) => `${v.id} (${v.impact ?? "?"}): ${v.help} — ${v.targets.slice(0, 5).join(", ")}${v.targets.length > 5 ? ` and ${v.targets.length - 5} more` : ""}`);
}
