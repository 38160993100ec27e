/**
 * @module Accounts' custom page HTML (blog posts' head_html and footer_html), checked once when
 * it is written: it must go through HTMLRewriter, the streaming parser of the Workers runtime, which the
 * platform's HTML features (and `wrangler dev`'s proxy) run over every page. Markup it cannot parse (such as
 * a `<style>` inside a `<select>`) would otherwise break the page in those places: a blank 200 or a cut
 * connection. The HTML is stored as written; post_body is sanitized on every serve instead.
 */
import { badRequest } from "./errors";

/** Whether HTMLRewriter parses `html` to the end, with handlers on every element, text and comment. */
export async function parsesWithHtmlRewriter(html: string): Promise<boolean> {
  try {
    await new HTMLRewriter()
      .on("*", { element() {}, text() {}, comments() {} })
      .transform(new Response(html))
      .arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/** Refuses (400 naming the field) any of `fields` HTMLRewriter cannot parse. */
export async function checkCustomHtml(fields: Record<string, string | undefined>): Promise<void> {
  for (const [field, html] of Object.entries(fields)) {
    if (html === undefined || html === "") continue;
    if (!(await parsesWithHtmlRewriter(html))) {
      throw badRequest(`${field} is HTML the page renderer cannot parse; check for markup such as a <style> inside <select>`, {
        context: { propertyName: [field] },
      });
    }
  }
}
