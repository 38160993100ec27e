/**
 * @module Allowlist HTML sanitizer for blog post bodies (`post_body`) served on public pages.
 * It runs on the runtime's HTMLRewriter, a real HTML5 tokenizer, so malformed markup is parsed the way a
 * browser parses it instead of being matched with regular expressions. Elements outside the allowlist are
 * unwrapped (their text stays); dangerous ones (script, style, iframe, object, embed, ...) are dropped with
 * their content; attributes outside the allowlist, every `on*` handler and URLs with a scheme other than
 * http, https, mailto or tel (e.g. `javascript:`) are removed. Comments are removed.
 *
 * It never throws: the tokenizer refuses markup whose text type it cannot decide while
 * rewriting (e.g. `<select><style>`, `<svg><style>`), and a public page must not answer 500 for it. Such a
 * body, and one that ends inside an unfinished tag or comment, is rendered as escaped text: shown, never
 * interpreted.
 */
import { escapeHtml } from "./html";

/** Removed together with everything inside them. */
const DROP = new Set([
  "script", "style", "iframe", "object", "embed", "applet", "frame", "frameset", "noframes", "noembed",
  "noscript", "template", "svg", "math", "link", "meta", "base", "title", "head", "form", "input", "button",
  "textarea", "select", "option", "xmp", "plaintext", "param", "audio", "video", "source", "track", "canvas",
  "portal", "dialog",
]);

/** Kept with their allowed attributes; anything not here and not in DROP is unwrapped. */
const ALLOWED = new Set([
  "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "b", "em", "i", "u", "s", "strike", "sub",
  "sup", "small", "mark", "blockquote", "q", "cite", "code", "pre", "kbd", "samp", "var", "ul", "ol", "li",
  "dl", "dt", "dd", "a", "img", "figure", "figcaption", "table", "thead", "tbody", "tfoot", "tr", "th", "td",
  "caption", "colgroup", "col", "span", "div", "section", "article", "header", "footer", "aside", "abbr",
  "time", "del", "ins", "center", "address", "wbr",
]);

const GLOBAL_ATTRS = new Set(["class", "id", "title", "lang", "dir", "style"]);
const ELEMENT_ATTRS: Record<string, Set<string>> = {
  a: new Set(["href", "target", "rel", "name"]),
  img: new Set(["src", "alt", "width", "height"]),
  td: new Set(["colspan", "rowspan", "align", "valign", "width"]),
  th: new Set(["colspan", "rowspan", "align", "valign", "width", "scope"]),
  col: new Set(["span", "width"]),
  colgroup: new Set(["span", "width"]),
  table: new Set(["width", "border", "cellpadding", "cellspacing", "align"]),
  ol: new Set(["start", "type", "reversed"]),
  blockquote: new Set(["cite"]),
  q: new Set(["cite"]),
  del: new Set(["cite", "datetime"]),
  ins: new Set(["cite", "datetime"]),
  time: new Set(["datetime"]),
  p: new Set(["align"]),
  div: new Set(["align"]),
};
const URL_ATTRS = new Set(["href", "src", "cite"]);

/** Elements without content or end tag (of the allowlist). */
const VOID = new Set(["br", "hr", "img", "col", "wbr"]);

/**
 * Elements whose end tag HTML lets a parent's end tag imply: left open in a body, the page's own `</div>`
 * after it closes them, so they get no closer (a closer for one the parser already closed implicitly, as
 * `<p>a<p>b`, would be a stray `</p>`, which a browser turns into an empty paragraph).
 */
const IMPLIED_END = new Set(["p", "li", "dt", "dd", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup"]);
const SAFE_SCHEMES = new Set(["http", "https", "mailto", "tel"]);

const NAMED: Record<string, string> = { colon: ":", tab: "\t", newline: "\n", amp: "&", sol: "/", quest: "?", num: "#", period: "." };

/**
 * Attribute values come from the tokenizer still entity-encoded (`jav&#x61;script:`), while the browser
 * decodes them; decode what can form a scheme before judging it.
 */
export function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/** True when a URL attribute is safe to keep: relative, fragment, or an allowed scheme. */
export function isSafeUrl(raw: string): boolean {
  // Browsers ignore ASCII tab/newline anywhere in a URL and strip leading control characters and spaces.
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  const value = decodeEntities(raw).replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
  const head = value.split(/[/?#]/, 1)[0] ?? "";
  if (!head.includes(":")) return !head.includes("&"); // relative; an undecodable entity could hide a scheme
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(value);
  return m !== null && SAFE_SCHEMES.has(m[1]!.toLowerCase());
}

/** Inline styles may not load anything or run legacy script hooks. */
function isSafeStyle(raw: string): boolean {
  const value = decodeEntities(raw).toLowerCase();
  return !/url\s*\(|expression|javascript|behavior|@import|\\/.test(value);
}

/**
 * Dropped as well from HTML shown inside the app's own pages (`inPage`): an `id` or `name` would let the
 * markup stand in for the page's own elements in its scripts' lookups (DOM clobbering), and a `class` or
 * `style` dress it up as the page's own controls.
 */
const PAGE_OWNED_ATTRS = new Set(["id", "name", "class", "style"]);

export interface SanitizeOptions {
  /** The HTML is shown inside a page of the app, beside its scripts (a note on a record page). */
  inPage?: boolean;
}

function keepAttribute(tag: string, name: string, value: string, opts: SanitizeOptions = {}): boolean {
  if (name.startsWith("on")) return false;
  if (opts.inPage && PAGE_OWNED_ATTRS.has(name)) return false;
  if (!GLOBAL_ATTRS.has(name) && !ELEMENT_ATTRS[tag]?.has(name)) return false;
  if (URL_ATTRS.has(name)) return isSafeUrl(value);
  if (name === "style") return isSafeStyle(value);
  return true;
}

/** Thrown when the input ends inside a tag, comment or doctype (see `rewrite`). */
class UnfinishedMarkup extends Error {}

/** Returns the sanitized HTML, or the input as escaped text when the tokenizer cannot parse it. */
export async function sanitizeHtml(input: string, opts: SanitizeOptions = {}): Promise<string> {
  if (input === "") return "";
  try {
    return await rewrite(input, opts);
  } catch (err) {
    // Expected for ambiguous or unfinished markup (see @module); the page still renders.
    const reason = err instanceof Error ? err.message.split("\n", 1)[0] : String(err);
    console.warn(`sanitizeHtml: body rendered as escaped text: ${reason}`);
    return escapeHtml(input);
  }
}

/**
 * Several bodies sanitized in one pass of the tokenizer (a page of 50 notes: one pass costs about what a
 * single body does, 50 passes cost most of the page). The bodies are joined with separator elements whose
 * names are new on every call, so no body can forge one, and split again at them. A body that would
 * change how the next one is read (ending inside a tag, a comment or a dropped element such as an unclosed
 * `<script>`) hides the separators after it from the element handler; then every body is sanitized on its
 * own, as sanitizeHtml does. Answers the same strings as sanitizeHtml on each body.
 */
export async function sanitizeMany(inputs: string[], opts: SanitizeOptions = {}): Promise<string[]> {
  const out = inputs.map((x) => remembered(x, opts));
  const missing = [...new Set(inputs.filter((_, i) => out[i] === undefined))];
  if (missing.length) {
    const done = await sanitizeManyOnce(missing, opts);
    missing.forEach((x, i) => remember(x, opts, done[i]!));
  }
  return inputs.map((x, i) => out[i] ?? remembered(x, opts) ?? "");
}

/**
 * Sanitized bodies this isolate made lately, by body and options. Sanitizing is a pure function of the
 * body, so a remembered answer is always the right one (unlike a cached page, it cannot be stale); it
 * spares the tokenizer pass that otherwise costs a record page of 50 notes most of its time on every view.
 * Bounded by characters kept (bodies and answers), the oldest forgotten first; a body larger than a
 * tenth of the bound is never kept.
 */
const REMEMBERED_CHARS = 4_000_000;
const rememberedMap = new Map<string, string>();
let rememberedChars = 0;
const memoKey = (input: string, opts: SanitizeOptions) => `${opts.inPage ? "p" : "-"}${input}`;

function remembered(input: string, opts: SanitizeOptions): string | undefined {
  const key = memoKey(input, opts);
  const hit = rememberedMap.get(key);
  if (hit !== undefined) {
    // Most recently used last: Map keeps insertion order, so the first key is the one to forget next.
    rememberedMap.delete(key);
    rememberedMap.set(key, hit);
  }
  return hit;
}

function remember(input: string, opts: SanitizeOptions, output: string) {
  const size = input.length + output.length;
  if (size > REMEMBERED_CHARS / 10) return;
  rememberedMap.set(memoKey(input, opts), output);
  rememberedChars += size;
  for (const [k, v] of rememberedMap) {
    if (rememberedChars <= REMEMBERED_CHARS) break;
    rememberedMap.delete(k);
    rememberedChars -= k.length - 1 + v.length;
  }
}

async function sanitizeManyOnce(inputs: string[], opts: SanitizeOptions): Promise<string[]> {
  if (inputs.length > 1) {
    const prefix = `crm-sep-${crypto.randomUUID()}-`;
    const seen: number[] = [];
    try {
      const out = await rewrite(inputs.map((x, i) => (i === 0 ? x : `<${prefix}${i}>${x}`)).join(""), opts, { prefix, seen });
      const parts = out.split(new RegExp(`<${prefix}\\d+>`));
      // Every separator met as an element, once, in order: each part is one body's own output.
      if (parts.length === inputs.length && seen.length === inputs.length - 1 && seen.every((n, i) => n === i + 1)) return parts;
    } catch {
      // Expected for ambiguous or unfinished markup: each body alone below, as escaped text where it must be.
    }
  }
  return Promise.all(inputs.map((x) => sanitizeHtml(x, opts)));
}

/**
 * The elements a body opened and did not close (`<b>bold`, `<a href>link`, `<table>`). Closed at its end,
 * so that nothing of a body reaches the page after it: the parser would carry an open `<b>` or `<a>` on to
 * the page's following text (it reopens formatting elements), and an open `<table>` would pull the page's
 * own markup into the table. Each body has its own list; an end tag removes the innermost of its name.
 */
class OpenElements {
  private open: string[] = [];
  opened(el: Element) {
    const tag = el.tagName.toLowerCase();
    if (VOID.has(tag) || IMPLIED_END.has(tag)) return;
    const list = this.open;
    list.push(tag);
    el.onEndTag(() => {
      const at = list.lastIndexOf(tag);
      if (at >= 0) list.splice(at, 1);
    });
  }
  /** The end tags of the body's open elements, innermost first; the next body starts with none. */
  closers(): string {
    const out = this.open.reverse().map((t) => `</${t}>`).join("");
    this.open = [];
    return out;
  }
}

async function rewrite(input: string, opts: SanitizeOptions, separators?: { prefix: string; seen: number[] }): Promise<string> {
  // The tokenizer passes an unfinished construct at the end of the input through as it is
  // (`<img src=x onerror=alert(1)//`): inside the page the markup after the body would finish it. An end
  // marker only a finished input lets it see as a tag tells the two apart; it cannot be forged because its
  // name is new on every call.
  const marker = `crm-end-${crypto.randomUUID()}`;
  const open = new OpenElements();
  const rewriter = new HTMLRewriter()
    .on("*", {
      element(el) {
        const tag = el.tagName.toLowerCase();
        if (separators && tag.startsWith(separators.prefix)) {
          separators.seen.push(Number(tag.slice(separators.prefix.length)));
          el.before(open.closers(), { html: true });
          return;
        }
        if (tag === marker) {
          el.replace(open.closers(), { html: true });
          return;
        }
        if (DROP.has(tag)) {
          el.remove();
          return;
        }
        if (!ALLOWED.has(tag)) {
          el.removeAndKeepContent();
          return;
        }
        // Collected first: removing while iterating would skip attributes.
        const attrs = [...el.attributes] as [string, string][];
        for (const [name, value] of attrs) {
          if (!keepAttribute(tag, name.toLowerCase(), value, opts)) el.removeAttribute(name);
        }
        // A link opening a new window must not hand the opener to the target page.
        if (tag === "a" && el.hasAttribute("target")) el.setAttribute("rel", "noopener noreferrer");
        open.opened(el);
      },
    })
    .onDocument({
      comments(c) {
        c.remove();
      },
      // A `<` that is text in the input (`a < b`, a stray `<` before a tag) could start a tag once the
      // markup after it is removed or unwrapped (`<<blink>img src onerror=…` → `<img src onerror=…`); as
      // `&lt;` it stays text whatever ends up next to it (test/blog/sanitize-property.test.ts covers it).
      text(t) {
        if (t.text.includes("<")) t.replace(t.text.replace(/</g, "&lt;"), { html: true });
      },
    });
  const out = await rewriter.transform(new Response(`${input}<${marker}>`)).text();
  // Still there: the input ended inside a tag, comment or doctype. Gone with a dropped element's content
  // (an unclosed <script>): that content is removed up to the end, so nothing is left open.
  if (out.includes(marker)) throw new UnfinishedMarkup("input ends inside unfinished markup");
  // A CDATA section the tokenizer passed through as foreign content (after a dropped <svg> whose end tag a
  // CDATA section hid) is a comment to a browser parsing the page as HTML: escaped, it is text, and inside an
  // attribute value `&lt;` reads as the same `<`.
  return out.replace(/<!\[CDATA\[/gi, "&lt;![CDATA[");
}
