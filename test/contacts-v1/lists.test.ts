/** The v1 recent lists and search. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { V1, v1Create, v1Props } from "./helpers";
import { SHARDS } from "../helpers/shards";

const UPDATED = "/contacts/v1/lists/recently_updated/contacts/recent";
const CREATED = "/contacts/v1/lists/all/contacts/recent";
const SEARCH = "/contacts/v1/search/query";

/**
 * Sets a contact's clocks, so the order does not depend on how fast the test runs. Ids are unique across
 * every database (each allocates from its own range, src/db/id-ranges.ts), so the update runs wherever the contact lives.
 */
const clocks = async (vid: number, createdAt: number, updatedAt: number) => {
  for (const d1 of [env.DB, ...SHARDS.map((name) => env[name])]) {
    await d1.prepare("update crm_objects set created_at = ?, updated_at = ? where id = ?").bind(createdAt, updatedAt, vid).run();
  }
};

async function pages(t: Tenant, path: string, count: number) {
  const seen: number[][] = [];
  let query = `count=${count}`;
  for (;;) {
    const res = await call("GET", `${path}?${query}`, { token: t.pat });
    expect(res.status, res.text).toBe(200);
    seen.push(res.json.contacts.map((c: { vid: number }) => c.vid));
    if (!res.json["has-more"]) return { seen, last: res.json };
    query = `count=${count}&timeOffset=${res.json["time-offset"]}&vidOffset=${res.json["vid-offset"]}`;
  }
}

describe("GET the recent lists", () => {
  it("recently updated: newest modification first, paged by timeOffset + vidOffset, ties broken by vid", async () => {
    const t = await tenant();
    const vids = [];
    for (let i = 0; i < 5; i++) vids.push(await v1Create(t, { email: `r${i}@example.com` }));
    // Two contacts share a modification time: the higher vid comes first.
    for (const [i, at] of [[0, 5000], [1, 3000], [2, 3000], [3, 1000], [4, 4000]] as const) await clocks(vids[i]!, 100 + i, at);
    const { seen } = await pages(t, UPDATED, 2);
    expect(seen).toEqual([[vids[0], vids[4]], [vids[2], vids[1]], [vids[3]]]);
    const first = await call("GET", `${UPDATED}?count=1&property=email`, { token: t.pat });
    expect(first.json).toMatchObject({ "has-more": true, "time-offset": 5000, "vid-offset": vids[0] });
    expect(first.json.contacts[0].addedAt).toBe(5000);
    expect(first.json.contacts[0].properties).toEqual({ lastmodifieddate: { value: "5000" }, email: { value: "r0@example.com" } });
  });

  it("recently created: newest creation first; an update does not move a contact", async () => {
    const t = await tenant();
    const vids = [];
    for (let i = 0; i < 3; i++) vids.push(await v1Create(t, { email: `c${i}@example.com` }));
    for (const [i, at] of [[0, 300], [1, 100], [2, 200]] as const) await clocks(vids[i]!, at, 9000 - i);
    const { seen, last } = await pages(t, CREATED, 2);
    expect(seen).toEqual([[vids[0], vids[2]], [vids[1]]]);
    expect(last["has-more"]).toBe(false);
  });

  it("shows only the caller's contacts; an empty list answers zero offsets", async () => {
    const a = await tenant();
    const b = await tenant();
    await v1Create(a, { email: "a@example.com" });
    for (const path of [UPDATED, CREATED]) {
      const res = await call("GET", path, { token: b.pat });
      expect(res.json).toEqual({ contacts: [], "has-more": false, "time-offset": 0, "vid-offset": 0 });
    }
  });

  it.each([
    [UPDATED, "count=x", "count"],
    [UPDATED, "timeOffset=1", "vidOffset"],
    [CREATED, "vidOffset=abc&timeOffset=1", "vidOffset"],
    [CREATED, "timeOffset=-5&vidOffset=1", "timeOffset"],
  ])("%s?%s → 400 naming %s", async (path, q, field) => {
    const t = await tenant();
    const body = expectError(await call("GET", `${path}?${q}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(body.message).toContain(field);
  });
});

describe("GET /contacts/v1/search/query", () => {
  it("finds contacts by email, names, phone and company words (prefixes, any case), paged by offset", async () => {
    const t = await tenant();
    const brian = await v1Create(t, { email: "brian@hubspot.com", firstname: "Brian", lastname: "Halligan", phone: "888-482-7768", company: "HubSpot" });
    const dharmesh = await v1Create(t, { email: "dharmesh@hubspot.com", firstname: "Dharmesh", lastname: "Shah" });
    await v1Create(t, { email: "someone@elsewhere.org", firstname: "Someone", company: "Elsewhere" });
    // A contact created through CRM v3 is searchable too (the index follows every writer).
    const v3 = Number((await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: "v3@hubspot.com" } } })).json.id);
    const ids = async (q: string, extra = "") => (await call("GET", `${SEARCH}?q=${encodeURIComponent(q)}${extra}`, { token: t.pat })).json.contacts.map((c: { vid: number }) => c.vid);
    expect(await ids("@hubspot.com")).toEqual([brian, dharmesh, v3]);
    expect(await ids("halli")).toEqual([brian]);
    expect(await ids("Brian Halligan")).toEqual([brian]);
    expect(await ids("8884827768")).toEqual([brian]);
    expect(await ids("888-482")).toEqual([brian]);
    expect(await ids("elsewhere")).toHaveLength(1);
    expect(await ids("nobody")).toEqual([]);
    const page = await call("GET", `${SEARCH}?q=hubspot&count=2&offset=`, { token: t.pat });
    expect(page.json).toMatchObject({ query: "hubspot", offset: 2, "has-more": true, total: 3 });
    const next = await call("GET", `${SEARCH}?q=hubspot&count=2&offset=2`, { token: t.pat });
    expect(next.json).toMatchObject({ offset: 3, "has-more": false, total: 3 });
    expect(next.json.contacts.map((c: { vid: number }) => c.vid)).toEqual([v3]);
    const past = await call("GET", `${SEARCH}?q=hubspot&count=2&offset=10`, { token: t.pat });
    expect(past.json).toMatchObject({ offset: 10, "has-more": false, total: 3, contacts: [] });
    // Updates and deletes reach the index.
    await call("POST", `${V1}/vid/${dharmesh}/profile`, { token: t.pat, body: v1Props({ lastname: "Renamed" }) });
    expect(await ids("shah")).toEqual([]);
    expect(await ids("renamed")).toEqual([dharmesh]);
    await call("DELETE", `${V1}/vid/${brian}`, { token: t.pat });
    expect(await ids("brian")).toEqual([]);
  });

  it("the recorded empty answer; quotes and FTS operators in q are plain words; other accounts are never found", async () => {
    const a = await tenant();
    const b = await tenant();
    await v1Create(a, { email: "secret@hubspot.com", firstname: "Secret" });
    const res = await call("GET", `${SEARCH}?count=25&offset=&q=123xyz`, { token: a.pat });
    expect(res.json).toEqual({ query: "123xyz", offset: 0, "has-more": false, total: 0, contacts: [] });
    for (const q of ['secret" OR "x', "secret*", "NEAR(secret)", "portal : p1", "-", "\"\""]) {
      const r = await call("GET", `${SEARCH}?q=${encodeURIComponent(q)}`, { token: b.pat });
      expect([q, r.status, r.json.total]).toEqual([q, 200, 0]);
    }
    expect((await call("GET", `${SEARCH}?q=secret`, { token: a.pat })).json.total).toBe(1);
  });

  it.each([
    ["", "q"],
    ["q=", "q"],
    ["q=x&count=abc", "count"],
    ["q=x&offset=-1", "offset"],
    ["q=x&offset=20000", "offset"],
  ])("?%s → 400 naming %s", async (q, field) => {
    const t = await tenant();
    const body = expectError(await call("GET", `${SEARCH}?${q}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(body.message).toContain(field);
  });
});
