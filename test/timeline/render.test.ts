/** The pure renderer: Markdown, formatDate, extraData only in details, escaping, and the interpreter's limits. */
import { describe, expect, it } from "vitest";
import { renderEvent, safeUrl, type RenderableEvent, type RenderableType } from "../../src/services/timeline/render";
import { checkTemplate, evaluate, formatDate, parseTemplate } from "../../src/services/timeline/template";

const type = (headerTemplate: string | null, detailTemplate: string | null = null): RenderableType => ({
  name: "Webinar <registration>",
  objectType: "CONTACT",
  headerTemplate,
  detailTemplate,
});

const event = (over: Partial<RenderableEvent> = {}): RenderableEvent => ({
  eventId: "evt-1",
  eventTypeId: 7,
  objectId: 42,
  email: "ann@example.com",
  utk: null,
  timestamp: 1416325631000, // 2014-11-18T15:47:11Z
  properties: { title: "Intro", seats: "12", startsAt: "1416325631000" },
  extraData: { speaker: { name: "Ann" }, tags: ["a", "b"] },
  ...over,
});

const header = (tpl: string, ev = event()) => renderEvent(type(tpl), ev).headerHtml;
const detail = (tpl: string, ev = event()) => renderEvent(type("h", tpl), ev).detailHtml;

describe("Markdown", () => {
  it.each([
    ["# Title {{title}}", "<h1>Title Intro</h1>"],
    ["**{{title}}** has {{seats}} seats", "<p><strong>Intro</strong> has 12 seats</p>"],
    ["- one\n- {{title}}", "<ul>\n<li>one</li>\n<li>Intro</li>\n</ul>"],
    ["[Join](https://example.com/w?id={{id}})", '<p><a href="https://example.com/w?id=evt-1" rel="noopener noreferrer nofollow">Join</a></p>'],
    ["`{{title}}`", "<p><code>Intro</code></p>"],
    // The docs' example: event fields (id, objectType) are data too.
    ["# Title for event {{id}}\nThis is an event for {{objectType}}", "<h1>Title for event evt-1</h1>\n<p>This is an event for CONTACT</p>"],
  ])("%s", (tpl, html) => {
    expect(header(tpl)).toBe(html);
  });

  it("uses the event type's name (escaped) when there is no header template, and no detail", () => {
    expect(renderEvent(type(null), event())).toEqual({ headerHtml: "<p>Webinar &lt;registration&gt;</p>", detailHtml: "" });
  });
});

describe("formatDate", () => {
  it.each([
    [undefined, "Nov 18, 2014 3:47:11 PM"],
    ["short", "11/18/14 3:47 PM"],
    ["long", "November 18, 2014 3:47:11 PM UTC"],
    ["full", "Tuesday, November 18, 2014 3:47:11 PM UTC"],
  ])("format=%s", (format, text) => {
    expect(formatDate(1416325631000, format)).toBe(text);
  });

  it("is used as a block helper on the timestamp and on Date properties (strings of epoch ms)", () => {
    expect(detail("At {{#formatDate timestamp}}{{/formatDate}}")).toBe("<p>At Nov 18, 2014 3:47:11 PM</p>");
    expect(detail('Starts {{#formatDate startsAt format="short"}}{{/formatDate}}')).toBe("<p>Starts 11/18/14 3:47 PM</p>");
    expect(header("{{formatDate timestamp}}")).toBe("<p>Nov 18, 2014 3:47:11 PM</p>");
  });

  it("midnight and noon use 12, and non-dates render nothing", () => {
    expect(formatDate(Date.UTC(2020, 0, 2, 0, 5, 9))).toBe("Jan 2, 2020 12:05:09 AM");
    expect(formatDate(Date.UTC(2020, 0, 2, 12, 0, 0), "short")).toBe("1/2/20 12:00 PM");
    expect(formatDate("not a date")).toBe("");
    expect(formatDate(undefined)).toBe("");
  });
});

describe("extraData", () => {
  it("is data of the detail template", () => {
    expect(detail("Speaker {{extraData.speaker.name}}, tags {{#each extraData.tags}}[{{@index}}:{{this}}]{{/each}}")).toBe(
      "<p>Speaker Ann, tags [0:a][1:b]</p>",
    );
  });

  it("is not data of the header template, however it is reached", () => {
    expect(header('x{{lookup this "extraData"}}{{#each this}}{{#if @key}}{{/if}}{{/each}}y')).toBe("<p>xy</p>");
    expect(header("{{#each this}}{{@key}} {{/each}}")).not.toContain("extraData");
  });

  it("objects print as JSON", () => {
    expect(detail("{{extraData.speaker}}")).toBe("<p>{&quot;name&quot;:&quot;Ann&quot;}</p>");
  });
});

describe("escaping: no script reaches a timeline", () => {
  const xss = event({ properties: { title: "<script>alert(1)</script>", link: "javascript:alert(1)", img: '<img src=x onerror="alert(1)">' } });

  it.each([
    ["{{title}}", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    ["{{{title}}}", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    ["Hi {{img}}", "<p>Hi &lt;img src=x onerror=&quot;alert(1)&quot;&gt;</p>"],
    ["<script>alert('t')</script>", "&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;"],
    ['<a href="javascript:alert(1)">x</a> {{title}}', "&lt;a href=&quot;javascript:alert(1)&quot;&gt;x&lt;/a&gt;"],
    ["[click]({{link}})", "<p>click</p>"],
    ["[click](JaVaScRiPt:alert(1))", "<p>click</p>"],
    ["<javascript:alert(1)>", "<p>javascript:alert(1)</p>"],
    ["![x](javascript:alert(1))", "<p>x</p>"],
    // Character references stay literal (`&` is escaped), so the browser sees a harmless relative URL.
    ["[x](&#x6A;avascript:alert(1))", 'href="&amp;#x6A;avascript:alert(1)"'],
    ["[x](java&#09;script:alert(1))", 'href="java&amp;#09;script:alert(1)"'],
    ["[x][r]\n\n[r]: javascript:alert(1)", "<p>x</p>"],
    ["![x](data:text/html;base64,PHNjcmlwdD4=)", "<p>x</p>"],
    ["[a](https://ok.example/?q=\"><script>)", '<p><a href="https://ok.example/?q=&quot;&gt;&lt;script&gt;"'],
  ])("%s", (tpl, expected) => {
    const html = header(tpl, xss);
    expect(html).toContain(expected);
    expect(html).not.toMatch(/<script|<img|href="javascript|onerror="/i);
  });

  it("allows only http(s), mailto and relative URLs", () => {
    expect(safeUrl("https://a.example/x")).toBe("https://a.example/x");
    expect(safeUrl("mailto:a@b.co")).toBe("mailto:a@b.co");
    expect(safeUrl("/contacts/1")).toBe("/contacts/1");
    expect(safeUrl("page?a=b:c")).toBe("page?a=b:c");
    expect(safeUrl("java\tscript:alert(1)")).toBeNull();
    expect(safeUrl("vbscript:x")).toBeNull();
  });
});

describe("the interpreter", () => {
  const run = (tpl: string, data: Record<string, unknown>) => evaluate(parseTemplate(tpl), data);

  it.each([
    ["{{#if a}}yes{{else}}no{{/if}}", { a: "x" }, "yes"],
    ["{{#if a}}yes{{else}}no{{/if}}", { a: "" }, "no"],
    ["{{#if a}}yes{{else}}no{{/if}}", { a: 0 }, "no"],
    ["{{#if a includeZero=true}}yes{{/if}}", { a: 0 }, "yes"],
    ["{{#if a}}1{{else if b}}2{{else}}3{{/if}}", { b: true }, "2"],
    ["{{#unless a}}none{{/unless}}", { a: [] }, "none"],
    ["{{#each o}}{{@key}}={{this}};{{/each}}", { o: { x: 1, y: 2 } }, "x=1;y=2;"],
    ["{{#each l}}{{#if @first}}F{{/if}}{{this}}{{#if @last}}L{{/if}}{{/each}}", { l: [1, 2, 3] }, "F123L"],
    ["{{#each l}}{{else}}empty{{/each}}", { l: [] }, "empty"],
    ["{{#each l as |item i|}}{{i}}:{{item.n}} {{/each}}", { l: [{ n: "a" }, { n: "b" }] }, "0:a 1:b "],
    ["{{#each l}}{{../name}}{{name}} {{/each}}", { name: "P", l: [{ name: "c" }] }, "Pc "],
    ["{{#with p}}{{n}}{{/with}}", { p: { n: "in" } }, "in"],
    ["{{#p}}{{n}}{{/p}}", { p: { n: "section" } }, "section"],
    ["{{#l}}{{this}}{{/l}}", { l: ["a", "b"] }, "ab"],
    ["{{^p}}inverted{{/p}}", { p: null }, "inverted"],
    ["{{lookup o k}}", { o: { z: "v" }, k: "z" }, "v"],
    ["{{l.[1]}} {{l.length}}", { l: ["a", "b"] }, "b 2"],
    ["{{@root.name}}", { name: "root" }, "root"],
    ["{{! a comment }}x{{!-- another --}}", {}, "x"],
    ["{{missing.deep.path}}|{{unknownHelper a}}|{{#unknownBlock a}}x{{/unknownBlock}}", { a: 1 }, "||"],
    // Only own properties are reachable: no prototype members.
    ["{{constructor}}{{__proto__}}{{a.constructor.name}}{{toString}}{{a.hasOwnProperty}}", { a: {} }, ""],
    ["{{s.length}}", { s: "abc" }, ""],
  ])("%s", (tpl, data, out) => {
    expect(run(tpl, data)).toBe(out);
  });

  it("stops at its step budget instead of running away", () => {
    const big = Array.from({ length: 1000 }, (_, i) => i);
    const out = run("{{#each l}}{{#each ../l}}{{/each}}{{/each}}done", { l: big });
    expect(out).toBe("…");
  });

  it("stops at its output budget", () => {
    const out = run("{{#each l}}{{../s}}{{/each}}", { l: Array.from({ length: 100 }, () => 1), s: "x".repeat(5000) });
    expect(out.length).toBeLessThanOrEqual(100_001);
    expect(out.endsWith("…")).toBe(true);
  });
});

describe("save-time template checks", () => {
  it.each([
    ["{{#if x}}", "header", /^template does not parse: Parse error on line 1/],
    ["{{/if}}", "detail", /^template does not parse/],
    ["{{> partial}}", "detail", /partials are not supported/],
    ["{{#*inline \"x\"}}y{{/inline}}", "detail", /decorators are not supported/],
    ["{{extraData.a}}", "header", /extraData can be referenced only in the detail template/],
    ["{{#with extraData}}{{a}}{{/with}}", "header", /extraData/],
    ["{{#if x}}{{@root.extraData}}{{/if}}", "header", /extraData/],
    ["{{#each l}}{{../extraData}}{{/each}}", "header", /extraData/],
  ] as const)("%s (%s) is refused", (tpl, kind, message) => {
    expect(checkTemplate(tpl, kind)).toMatch(message);
  });

  it.each([
    ["{{extraData.a}}", "detail"],
    ["# {{title}} {{#formatDate timestamp format=\"short\"}}{{/formatDate}}", "header"],
    ["plain text", "header"],
  ] as const)("%s (%s) is accepted", (tpl, kind) => {
    expect(checkTemplate(tpl, kind)).toBeNull();
  });
});
