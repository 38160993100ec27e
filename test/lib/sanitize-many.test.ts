/**
 * sanitizeMany (one tokenizer pass over several bodies, the record page's notes) answers exactly what
 * sanitizeHtml answers for each body alone, including when a body would change how the next one is read:
 * it ends inside a tag, an attribute value, a comment, or an unclosed dropped element.
 */
import { describe, expect, it } from "vitest";
import { sanitizeHtml, sanitizeMany } from "../../src/lib/sanitize";

const plain = [`<p>Asked about <strong>pricing</strong></p>`, `<a href="https://example.com/q" id="x" class="primary" style="color:red">quote</a>`, `a < b`, ``, `<ul><li>one</li></ul>`];

describe("sanitizeMany", () => {
  it.each([
    ["plain bodies", plain],
    ["a body ending inside a tag", [`<p>one</p>`, `<img src=x onerror=alert(1)//`, `<p>three</p>`]],
    ["a body ending inside an attribute value", [`<a title="`, `<p>two</p>`, `"><script>alert(1)</script>`]],
    ["a body ending inside a comment", [`<!-- open`, `<p>two</p>`, `-->`]],
    ["an unclosed script", [`<script>`, `<p>two</p>`, `</script><img src=x onerror=alert(1)>`]],
    ["an unclosed textarea and svg", [`<textarea>`, `</textarea><p>x</p>`, `<svg><p>y</p>`, `<p>z</p>`]],
    ["a forged separator", [`<crm-sep-1>`, `<p>two</p>`]],
    ["bodies leaving elements open", [`<b>bold <a href="/x">link`, `<p>two`, `<table><tr><td>cell`, `<em>x</em></b>`]],
  ])("answers each body as sanitizeHtml does: %s", async (_, bodies) => {
    for (const inPage of [false, true]) {
      const one = await Promise.all(bodies.map((b) => sanitizeHtml(b, { inPage })));
      expect(await sanitizeMany(bodies, { inPage })).toEqual(one);
    }
  });

  it("drops id, name, class and style in a page's HTML", async () => {
    expect(await sanitizeMany([`<p id="a" class="b" style="color:red">x</p>`, `<a name="n" href="/x">y</a>`], { inPage: true })).toEqual([`<p>x</p>`, `<a href="/x">y</a>`]);
  });

  it.each([
    ["a formatting element", `<b>bold <i>both`, `<b>bold <i>both</i></b>`],
    ["a link", `<a href="/x">link <strong>text`, `<a href="/x">link <strong>text</strong></a>`],
    ["a table", `<table><tr><td>cell`, `<table><tr><td>cell</table>`],
    ["a list and a div", `<div><ul><li>one`, `<div><ul><li>one</ul></div>`],
    ["closed ones and misnested ones", `<b><i>x</b></i><u>y`, `<b><i>x</b></i><u>y</u>`],
    ["paragraphs, closed by the page's own end tag", `<p>a<p>b`, `<p>a<p>b`],
    ["void elements", `<p>a<br>b<img src="/i.png">`, `<p>a<br>b<img src="/i.png">`],
  ])("closes what a body leaves open, so nothing of it reaches the page after it: %s", async (_, body, closed) => {
    expect(await sanitizeHtml(body, { inPage: true })).toBe(closed);
    expect(await sanitizeMany([body, `<p>next</p>`], { inPage: true })).toEqual([closed, `<p>next</p>`]);
  });
});
