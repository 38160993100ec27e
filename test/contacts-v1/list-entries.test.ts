/**
 * The v1 list entries are written as JSON text (contacts-v1.present.ts listEntriesText); the profile is
 * built as objects. Both must say the same thing about a contact: these hold the text to the profile for
 * values JSON must escape, contacts with and without an email, merged contacts, and every list route.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, send, BASE, tenant, type Tenant } from "../helpers/api";
import { profileOf, V1, v1Create } from "./helpers";

const LISTS = ["/contacts/v1/lists/all/contacts/all", "/contacts/v1/lists/recently_updated/contacts/recent", "/contacts/v1/lists/all/contacts/recent"];
/** The keys of a list entry, in the order the recorded pages have them. */
const ENTRY_KEYS = ["addedAt", "vid", "canonical-vid", "merged-vids", "portal-id", "is-contact", "profile-token", "profile-url", "properties", "form-submissions", "identity-profiles", "merge-audits"];
const TRICKY = 'Zoë "Q" \\ back\nline\ttab </script> 東京 😀 \u0001';

async function merge(t: Tenant, primary: number, secondary: number) {
  const res = await send(
    new Request(`${BASE}${V1}/merge-vids/${primary}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" },
      body: JSON.stringify({ vidToMerge: secondary }),
    }),
  );
  expect(res.status, await res.text()).toBe(200);
}

type Entry = Record<string, unknown> & { vid: number; properties: Record<string, { value: string }> };

/** What a list entry and the profile (value_only, the same properties) both carry. */
function shared(c: Record<string, unknown>) {
  const { addedAt: _a, properties: _p, "list-memberships": _l, ...rest } = c;
  return rest;
}

describe("v1 list entries as text", () => {
  it("say what the profile says, for escaped values, no email and a merged contact, on every list", async () => {
    const t = await tenant();
    const plain = await v1Create(t, { email: "plain@example.com", firstname: TRICKY, company: "Acme" });
    const noEmail = await v1Create(t, { lastname: "Nobody" });
    const survivor = await v1Create(t, { email: "survivor@example.com", firstname: "Hugh" });
    const merged = await v1Create(t, { email: "merged@example.com", firstname: "Logan", company: "X" });
    await merge(t, survivor, merged);
    const asked = ["firstname", "company", "lastname", "email", "createdate", "hs_object_id", "lastmodifieddate", "never_set"];
    const query = `count=100&${asked.map((p) => `property=${p}`).join("&")}`;

    for (const path of LISTS) {
      const res = await call("GET", `${path}?${query}`, { token: t.pat });
      expect(res.status, res.text).toBe(200);
      const entries = res.json.contacts as Entry[];
      expect(entries.map((c) => c.vid).sort()).toEqual([plain, noEmail, survivor].sort());
      for (const c of entries) {
        expect(Object.keys(c)).toEqual(ENTRY_KEYS);
        const profile = (await profileOf(t, c.vid, `?propertyMode=value_only&showListMemberships=false&${asked.map((p) => `property=${p}`).join("&")}`)).json;
        expect(shared(c)).toEqual(shared(profile));
        expect(c.properties).toEqual(profile.properties);
        // The asked order, absent ones left out; the recent lists always lead with lastmodifieddate.
        const order = path.endsWith("/recent") ? ["lastmodifieddate", ...asked.filter((p) => p !== "lastmodifieddate")] : asked;
        expect(Object.keys(c.properties)).toEqual(order.filter((p) => p in profile.properties));
      }
      const byVid = new Map(entries.map((c) => [c.vid, c]));
      expect(byVid.get(plain)!.properties.firstname).toEqual({ value: TRICKY });
      expect((byVid.get(noEmail)!["identity-profiles"] as { identities: { type: string }[] }[])[0]!.identities.map((i) => i.type)).toEqual(["LEAD_GUID"]);
      expect(byVid.get(survivor)!["merged-vids"]).toEqual([merged, survivor]);
      expect(byVid.get(survivor)!["merge-audits"]).toHaveLength(1);
    }
  });

  it("add an empty list-memberships last when asked, and keep another account's contacts out", async () => {
    const a = await tenant();
    const b = await tenant();
    const mine = await v1Create(a, { email: "mine@example.com" });
    await v1Create(b, { email: "theirs@example.com" });
    for (const path of LISTS) {
      const res = await call("GET", `${path}?showListMemberships=true`, { token: a.pat });
      expect(res.json.contacts.map((c: Entry) => c.vid)).toEqual([mine]);
      expect(Object.keys(res.json.contacts[0])).toEqual([...ENTRY_KEYS, "list-memberships"]);
      expect(res.json.contacts[0]["list-memberships"]).toEqual([]);
    }
  });

  it("answer a name asked twice once, leave out names no contact can hold, and pick from contacts of many properties", async () => {
    const t = await tenant();
    const wide = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`prop_${i}`, `value ${i} "q"`]));
    const vid = await v1Create(t, { ...wide, email: "wide@example.com", firstname: "Wide" });
    // Names no write accepts, quotes and a path included, never reach the statement: they are answered absent.
    const asked = ["prop_149", "firstname", "prop_0", "firstname", "not a name", `x')"; drop table crm_objects; --`, "$.firstname", "__proto__", "prop_77", "hs_object_id"];
    const res = await call("GET", `/contacts/v1/lists/all/contacts/all?${asked.map((p) => `property=${encodeURIComponent(p)}`).join("&")}`, { token: t.pat });
    expect(res.status, res.text).toBe(200);
    expect(res.text.match(/"firstname":/g)).toHaveLength(1);
    const [entry] = res.json.contacts;
    expect(Object.keys(entry.properties)).toEqual(["prop_149", "firstname", "prop_0", "prop_77", "hs_object_id"]);
    expect(entry.properties).toEqual({
      prop_149: { value: 'value 149 "q"' },
      firstname: { value: "Wide" },
      prop_0: { value: 'value 0 "q"' },
      prop_77: { value: 'value 77 "q"' },
      hs_object_id: { value: String(vid) },
    });
  });

  it("keep values that read like JSON as the strings they are, on every list", async () => {
    const t = await tenant();
    // The list writes each value as the JSON D1 answers for it, and leaves out a JSON null: a stored
    // string "null", an empty string or a JSON-looking string must still come back as that string.
    const stored = { firstname: "null", lastname: "", company: '{"a":[1,null]}', jobtitle: "[]", city: "0" };
    const vid = await v1Create(t, { email: "looks@example.com", ...stored });
    const asked = Object.keys(stored);
    for (const path of LISTS) {
      const res = await call("GET", `${path}?${asked.map((p) => `property=${p}`).join("&")}`, { token: t.pat });
      expect(res.status, res.text).toBe(200);
      const entry = (res.json.contacts as Entry[]).find((c) => c.vid === vid)!;
      const profile = (await profileOf(t, vid, `?propertyMode=value_only&${asked.map((p) => `property=${p}`).join("&")}`)).json;
      // The recent lists answer lastmodifieddate whether asked or not.
      const { lastmodifieddate: _always, ...properties } = entry.properties;
      expect(properties).toEqual(profile.properties);
      expect(entry.properties.firstname).toEqual({ value: "null" });
      expect(entry.properties.company).toEqual({ value: '{"a":[1,null]}' });
      expect(entry.properties.city).toEqual({ value: "0" });
    }
  });

  it.each([
    ["a name over 254 characters", `property=${"p".repeat(255)}`],
    ["more than 200 names", Array.from({ length: 201 }, (_, i) => `property=p${i}`).join("&")],
    ["an empty name", "property="],
  ])("refuse %s with the 400 envelope", async (_what, query) => {
    const t = await tenant();
    await v1Create(t, { email: "kept@example.com" });
    const body = expectError(await call("GET", `/contacts/v1/lists/all/contacts/all?${query}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(body.message).toContain("property");
  });
});
