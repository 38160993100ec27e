/**
 * The store overview's synced records and the store page: each store lists the records it
 * synced, linked to their record pages (products and line items included), errors link to their record,
 * and `/app/stores/{storeId}` pages one object type at a time; another account's store is the 404 page.
 */
import { describe, expect, it } from "vitest";
import { expectError } from "../helpers/api";
import { bridgeTenant, deliver, qmsg } from "../ecomm/queue-helpers";
import { page, signIn } from "./helpers";

/** `[href, text]` of the record links in a page. */
const recordLinks = (html: string) => [...html.matchAll(/<a href="(\/app\/(?:contacts|deals|products|line_items)\/\d+)">([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]);

describe("store overview: synced records", () => {
  it("lists the store's recently synced records, each linked to its record page, and links an error to its record", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([
      qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "Hat", price: "10" } }),
      qmsg(origin, "DEAL", { externalObjectId: "d1", properties: { name: "Order 1", stage: "processed" } }),
    ]);
    // A later message the bridge refuses: the product keeps its record, and the error links to it.
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { price: "ten" } })]);
    const b = await signIn(t);
    const res = await page(b, "/app/stores");
    expect(res.status).toBe(200);
    const links = recordLinks(res.text);
    const hat = links.find(([, text]) => text === "Hat");
    const order = links.find(([, text]) => text === "Order 1");
    expect(hat?.[0]).toMatch(/^\/app\/products\/\d+$/);
    expect(order?.[0]).toMatch(/^\/app\/deals\/\d+$/);
    expect(res.text).toContain(`<a href="${hat![0]}">Product <code>p1</code></a>`);
    expect(res.text).toContain(`<a href="/app/stores/shop">All synced records of Shop</a>`);
    // The product's page exists although products have no list: it sits under Stores.
    const product = await page(b, hat![0]!);
    expect(product.status).toBe(200);
    expect(product.text).toContain(`<h1>Hat <span class="muted">Product #`);
    expect(product.text).toContain(`<nav class="crumbs" aria-label="Breadcrumb"><a href="/app/stores">Stores</a></nav>`);
    expect(product.text).toContain(`<a href="/app/stores" aria-current="page">Stores</a>`);
  });
});

describe("GET /app/stores/{storeId}", () => {
  it("pages one type's synced records 25 at a time in external-id order, each linked to its record", async () => {
    const { t, origin } = await bridgeTenant();
    const ids = Array.from({ length: 27 }, (_, i) => `p${String(i).padStart(2, "0")}`);
    await deliver(ids.map((id) => qmsg(origin, "PRODUCT", { externalObjectId: id, properties: { title: `Product ${id}` } })));
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p05", action: "DELETE" })]);
    const b = await signIn(t);
    const first = await page(b, "/app/stores/shop?type=PRODUCT");
    expect(first.status).toBe(200);
    const names = recordLinks(first.text).map(([, text]) => text);
    expect(names).toEqual(ids.slice(0, 25).map((id) => `Product ${id}`));
    expect(first.text).toContain(`<a href="/app/stores/shop?type=PRODUCT" aria-current="page">Products <span class="count">(26)</span></a>`);
    expect(first.text).toContain("<code>p05</code> <span class=\"muted\">(deleted in the store; the record is kept)</span>");
    expect(first.text).toContain(`<a href="/app/stores/shop?type=PRODUCT&amp;after=p24" rel="next">Next page</a>`);
    expect(first.text).not.toContain("First page");
    const second = await page(b, "/app/stores/shop?type=PRODUCT&after=p24");
    expect(recordLinks(second.text).map(([, text]) => text)).toEqual(["Product p25", "Product p26"]);
    expect(second.text).toContain(`<a href="/app/stores/shop?type=PRODUCT">First page</a>`);
    expect(second.text).not.toContain("Next page");
  });

  it("opens on the first type that has records, and says so when a type has none", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([qmsg(origin, "DEAL", { externalObjectId: "d1", properties: { name: "Order 1", stage: "shipped" } })]);
    const b = await signIn(t);
    const res = await page(b, "/app/stores/shop");
    expect(res.text).toContain(`<a href="/app/stores/shop?type=DEAL" aria-current="page">Deals <span class="count">(1)</span></a>`);
    expect(recordLinks(res.text).map(([, text]) => text)).toEqual(["Order 1"]);
    expect(res.text).toContain(`<td role="cell" data-label="Stage"><span><span class="stage stage-shipped">Shipped</span></span></td>`);
    expect((await page(b, "/app/stores/shop?type=LINE_ITEM")).text).toContain("No line items synced from this store.");
  });

  it("answers another account's store and a missing one with the same 404 page", async () => {
    const a = await bridgeTenant();
    await deliver([qmsg(a.origin, "PRODUCT", { externalObjectId: "secret-product", properties: { title: "Secret" } })]);
    const other = await bridgeTenant(); // has its own "shop": A's must not show through it
    const b = await signIn(other.t);
    for (const path of ["/app/stores/nope", "/app/stores/%E0%A4%A", `/app/stores/${"x".repeat(150)}`]) {
      const res = await page(b, path);
      expect(res.status, path).toBe(404);
      expect(res.text).toContain("There is no store");
    }
    const own = await page(b, "/app/stores/shop?type=PRODUCT");
    expect(own.status).toBe(200);
    expect(own.text).not.toContain("Secret");
    expect(own.text).not.toContain("secret-product");
  });

  it.each([
    ["type=WIDGET", "type"],
    ["type=product", "type"],
    [`after=${"x".repeat(101)}`, "after"],
    ["after=", "after"],
  ])("refuses ?%s with a 400 naming %s", async (qs, field) => {
    const { t } = await bridgeTenant();
    const res = await page(await signIn(t), `/app/stores/shop?${qs}`);
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.text).toContain(field);
  });
});
