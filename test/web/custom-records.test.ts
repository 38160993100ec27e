/**
 * Custom object records in the web app: the start page's tile, the list with search, the record page named by
 * the schema's primary display property with its associations, and the same record through v3 search and v4
 * associations. Another account's type or record is the 404 page.
 */
import { describe, expect, it } from "vitest";
import { call, tenant, type Tenant } from "../helpers/api";
import { carBody, newSchema, S } from "../schemas/helpers";
import { page, signIn } from "./helpers";

async function create(t: Tenant, type: string, properties: Record<string, string>) {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

describe("custom records in the web app", () => {
  it("the start page, the list (with search) and the record page show a custom record by its primary display property", async () => {
    const t = await tenant();
    // Year is searchable too: the list shows it beside the name, under its label.
    const made = await call("POST", S, { token: t.pat, body: { ...carBody("car"), searchableProperties: ["model", "year"] } });
    expect(made.status, made.text).toBe(201);
    const car = made.json as { objectTypeId: string; fullyQualifiedName: string };
    const model = await create(t, car.objectTypeId, { model: "Model T", year: "1908" });
    await create(t, car.objectTypeId, { model: "Beetle", year: "1938" });
    const ada = await create(t, "contacts", { firstname: "Ada", email: "ada@example.com" });
    const linked = await call("PUT", `/crm/v3/objects/${car.objectTypeId}/${model}/associations/contacts/${ada}`, { token: t.pat });
    expect(linked.status, linked.text).toBe(204);
    // An association made through v4's default PUT (the schema's definition gives the pair its type) shows too.
    const bob = await create(t, "contacts", { firstname: "Bob", email: "bob@example.com" });
    const v4linked = await call("PUT", `/crm/v4/objects/${car.objectTypeId}/${model}/associations/default/contacts/${bob}`, { token: t.pat });
    expect(v4linked.status, v4linked.text).toBe(200);
    const b = await signIn(t);

    const home = (await page(b, "/app")).text;
    expect(home).toContain(`<a class="tile" href="/app/${car.objectTypeId}"><span class="tile-label">Cars</span><span class="tile-count">2</span></a>`);

    for (const path of [`/app/${car.objectTypeId}`, `/app/${car.fullyQualifiedName}`, "/app/car"]) {
      const list = await page(b, path);
      expect(list.status, path).toBe(200);
      const html = list.text;
      expect(html).toContain("<h1>Cars</h1>");
      expect(html).toMatch(/<th role="columnheader" scope="col" class="num"><a class="sort" href="\/app\/2-\d+\?sort=year&amp;dir=asc">Year</);
      expect(html).toContain('<td role="cell" data-label="Year" class="num"><span>1908</span></td>');
      expect([...html.matchAll(/<a href="\/app\/2-\d+\/(\d+)">([^<]*)<\/a>/g)].map((m) => [m[1], m[2]])).toEqual([
        [model, "Model T"],
        [expect.any(String), "Beetle"],
      ]);
    }
    const found = (await page(b, `/app/${car.objectTypeId}?q=beet`)).text;
    expect([...found.matchAll(/<a href="\/app\/2-\d+\/\d+">([^<]*)<\/a>/g)].map((m) => m[1])).toEqual(["Beetle"]);

    const record = await page(b, `/app/${car.objectTypeId}/${model}`);
    expect(record.status).toBe(200);
    const html = record.text;
    expect(html).toContain(`<h1>Model T <span class="muted">Car #${model}</span></h1>`);
    expect(html).toContain(`<a href="/app/${car.objectTypeId}">Cars</a>`);
    expect(html).toContain(`<a href="/app/contacts/${ada}">Ada</a>`);
    expect(html).toContain(`<a href="/app/contacts/${bob}">Bob</a>`);
    // The contact's page lists the car among its associations, by name, linked to its page.
    const contact = (await page(b, `/app/contacts/${ada}`)).text;
    expect(contact).toContain(`<h3>Cars <span class="count">(1)</span></h3>`);
    expect(contact).toContain(`<a href="/app/${car.objectTypeId}/${model}">Model T</a>`);

    // The same record through the API's other faces: v3 search and v4 associations.
    const search = await call("POST", `/crm/v3/objects/${car.objectTypeId}/search`, { token: t.pat, body: { filterGroups: [{ filters: [{ propertyName: "model", operator: "EQ", value: "Model T" }] }] } });
    expect(search.status, search.text).toBe(200);
    expect(search.json.results.map((r: { id: string }) => r.id)).toEqual([model]);
    const v4 = await call("GET", `/crm/v4/objects/contacts/${ada}/associations/${car.objectTypeId}`, { token: t.pat });
    expect(v4.status, v4.text).toBe(200);
    expect(v4.json.results.map((r: { toObjectId: number }) => String(r.toObjectId))).toEqual([model]);
  });

  it("another account's custom type and record are the 404 page", async () => {
    const [t, other] = [await tenant(), await tenant()];
    const car = await newSchema(t, "car");
    const model = await create(t, car.objectTypeId, { model: "Model T" });
    const b = await signIn(other);
    for (const path of [`/app/${car.objectTypeId}`, `/app/${car.fullyQualifiedName}`, `/app/${car.objectTypeId}/${model}`, "/app/car"]) {
      const res = await page(b, path);
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain("Model T");
    }
  });
});
