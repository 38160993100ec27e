/**
 * The v3 list answers with the properties D1 picked (only the asked ones leave the database), assembled as
 * text: these hold it to the single read's answer for values JSON must escape, for more names than one
 * json_object call takes, for names no record can hold, and with associations.
 */
import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { defineProperty, make } from "./helpers";

const get = (token: string, path: string) => call("GET", path, { token });

describe("the v3 list answers what the single read answers", () => {
  it("values JSON must escape come back exactly, as do names no record can hold", async () => {
    const t = await tenant();
    const tricky = {
      firstname: 'Quote " and back\\slash',
      lastname: "line\nbreak\ttab",
      city: "Zürich 東京 🚀",
      jobtitle: "</script><b>&amp;",
      phone: "007",
      company: "\u0001control",
    };
    const id = await make(t, "contacts", { email: "tricky@example.com", ...tricky });
    const names = [...Object.keys(tricky), "__proto__", 'no such"name', "website"];
    const query = names.map((n) => `properties=${encodeURIComponent(n)}`).join("&");
    const single = await get(t.pat, `/crm/v3/objects/contacts/${id}?${query}`);
    const list = await get(t.pat, `/crm/v3/objects/contacts?${query}`);
    expect(list.status, list.text).toBe(200);
    expect(list.json.results).toHaveLength(1);
    expect(list.json.results[0]).toEqual(single.json);
    expect(list.json.results[0].properties).toMatchObject({ ...tricky, website: null, 'no such"name': null });
    expect(list.text).toContain('"__proto__":null');
  });

  it("more names than one json_object call takes: every one answered, on every page", async () => {
    const t = await tenant();
    const custom = Array.from({ length: 60 }, (_, i) => `wide_${i}`);
    for (const name of custom) await defineProperty(t, "contacts", { name });
    const values = (k: number) => Object.fromEntries(custom.map((n, i) => [n, i % 7 === k ? "" : `${n} of ${k}`]).filter(([, v]) => v !== ""));
    const a = await make(t, "contacts", { email: "a@example.com", ...values(0) });
    const b = await make(t, "contacts", { email: "b@example.com", ...values(1) });
    const asked = [...custom, "email", "city"];
    const query = `properties=${asked.join(",")}`;
    const first = await get(t.pat, `/crm/v3/objects/contacts?limit=1&${query}`);
    expect(first.status, first.text).toBe(200);
    const next = new URL(first.json.paging.next.link);
    const second = await get(t.pat, next.pathname + next.search);
    expect(second.json.paging).toBeUndefined();
    for (const [page, id] of [[first, a], [second, b]] as const) {
      const single = await get(t.pat, `/crm/v3/objects/contacts/${id}?${query}`);
      expect(page.json.results[0]).toEqual(single.json);
      expect(Object.keys(page.json.results[0].properties)).toHaveLength(asked.length + 3);
    }
    expect(first.json.results[0].properties).toMatchObject({ wide_0: null, wide_1: "wide_1 of 0", wide_59: "wide_59 of 0", city: null });
    expect(second.json.results[0].properties).toMatchObject({ wide_0: "wide_0 of 1", wide_1: null, email: "b@example.com" });
  });

  it("with associations, each result carries them as the single read does; another account's records stay out", async () => {
    const t = await tenant();
    const company = await make(t, "companies", { name: "Orbit" });
    const linked = await make(t, "contacts", { email: "linked@example.com", city: "Houston" });
    const alone = await make(t, "contacts", { email: "alone@example.com" });
    const put = await call("PUT", `/crm/v3/objects/contacts/${linked}/associations/companies/${company}`, { token: t.pat });
    expect(put.status, put.text).toBe(204);
    const other = await tenant();
    await make(other, "contacts", { email: "other@example.com", city: "Houston" });
    const query = "associations=companies&properties=city,email";
    const list = await get(t.pat, `/crm/v3/objects/contacts?${query}`);
    expect(list.status, list.text).toBe(200);
    expect(list.json.results.map((r: { id: string }) => r.id)).toEqual([linked, alone]);
    for (const r of list.json.results) expect(r).toEqual((await get(t.pat, `/crm/v3/objects/contacts/${r.id}?${query}`)).json);
    expect(list.json.results[0].associations).toEqual({ companies: { results: [{ id: company, type: "contacts_to_companies" }] } });
    expect(list.json.results[1].associations).toEqual({});
  });
});
