/**
 * node-hubspot 2.3.14 (npm `hubspot`), unmodified, runs every one of its `contacts.*` methods against the
 * Worker except `addSecondaryEmail` and the properties sub-API; @hubspot/api-client 14.0.1's
 * generic `apiRequest` reaches the same routes.
 */
import { Client } from "@hubspot/api-client";
import Hubspot from "hubspot";
import { describe, expect, it } from "vitest";
import { tenant, workerUrl, type NodeTenant, rejection as rejectionOf } from "./helpers";

const hs = (t: NodeTenant) => new Hubspot({ accessToken: t.oauth, baseUrl: workerUrl() });
const props = (p: Record<string, string>) => ({ properties: Object.entries(p).map(([property, value]) => ({ property, value })) });

interface Profile {
  vid: number;
  "merged-vids": number[];
  properties: Record<string, { value: string; versions?: unknown[] }>;
  "identity-profiles": { vid: number; identities: { type: string; value: string }[] }[];
}
interface StatusCodeError {
  statusCode: number;
  error: Record<string, unknown>;
}
const rejection = (p: PromiseLike<unknown>) => rejectionOf<StatusCodeError>(p);

describe("node-hubspot 2.3.14: every contacts.* method on the v1 contacts API", () => {
  it("create, getById, getByEmail, getByToken, update, updateByEmail, createOrUpdate, delete", async () => {
    const t = await tenant();
    const client = hs(t);
    const created = (await client.contacts.create(props({ email: "ada@example.com", firstname: "Ada" }))) as Profile;
    expect(created.properties.email!.value).toBe("ada@example.com");
    const vid = created.vid;

    const byId = (await client.contacts.getById(String(vid), { property: ["firstname"], propertyMode: "value_only" })) as Profile;
    expect(byId.properties).toEqual({ firstname: { value: "Ada" } });
    expect(((await client.contacts.getByEmail("ada@example.com")) as Profile).vid).toBe(vid);

    await fetch(`${workerUrl()}/tracking/v1/identify`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.oauth}`, "content-type": "application/json" },
      body: JSON.stringify({ utk: "node-utk", email: "ada@example.com" }),
    });
    expect(((await client.contacts.getByToken("node-utk")) as Profile).vid).toBe(vid);

    expect(await client.contacts.update(vid, props({ lastname: "Lovelace" }))).toBeUndefined();
    expect(await client.contacts.updateByEmail("ada@example.com", props({ company: "Engines" }))).toBeUndefined();
    const after = (await client.contacts.getById(String(vid))) as Profile;
    expect([after.properties.lastname!.value, after.properties.company!.value]).toEqual(["Lovelace", "Engines"]);

    expect(await client.contacts.createOrUpdate("ada@example.com", props({ city: "London" }))).toEqual({ vid, isNew: false });
    const fresh = (await client.contacts.createOrUpdate("new@example.com", props({ firstname: "New" }))) as { vid: number; isNew: boolean };
    expect(fresh.isNew).toBe(true);

    expect(await client.contacts.delete(fresh.vid)).toEqual({ vid: fresh.vid, deleted: true, reason: "OK" });
    const gone = await rejection(client.contacts.getById(String(fresh.vid)));
    expect(gone.statusCode).toBe(404);
    expect(gone.error.message).toBe("contact does not exist");
  });

  it("create rejects a taken email with the 409 CONTACT_EXISTS and an invalid one with the 400 INVALID_EMAIL", async () => {
    const t = await tenant();
    const client = hs(t);
    const vid = ((await client.contacts.create(props({ email: "taken@example.com" }))) as Profile).vid;
    const dup = await rejection(client.contacts.create(props({ email: "taken@example.com" })));
    expect(dup.statusCode).toBe(409);
    expect(dup.error).toMatchObject({ error: "CONTACT_EXISTS", identityProfile: { vid } });
    const bad = await rejection(client.contacts.create(props({ email: "not_an_email" })));
    expect(bad.statusCode).toBe(400);
    expect(bad.error.validationResults).toEqual([expect.objectContaining({ error: "INVALID_EMAIL" })]);
  });

  it("createOrUpdateBatch, getByIdBatch, getByEmailBatch, getRecentlyModified, getRecentlyCreated, search, get, getAll", async () => {
    const t = await tenant();
    const client = hs(t);
    expect(
      await client.contacts.createOrUpdateBatch([
        { email: "one@hubspot.example", ...props({ firstname: "One", company: "Acme" }) },
        { email: "two@hubspot.example", ...props({ firstname: "Two", company: "Acme" }) },
        { email: "three@other.example", ...props({ firstname: "Three" }) },
      ]),
    ).toBeUndefined();
    const all = (await client.contacts.getAll({ count: 10 })) as { contacts: { vid: number }[] };
    const vids = all.contacts.map((c) => c.vid);
    expect(vids).toHaveLength(3);
    expect(((await client.contacts.get({ count: 1 })) as { "has-more": boolean })["has-more"]).toBe(true);

    const byIds = (await client.contacts.getByIdBatch([vids[0]!, vids[1]!, 999999999])) as Record<string, Profile>;
    expect(Object.keys(byIds).sort()).toEqual([String(vids[0]), String(vids[1])].sort());
    const byEmails = (await client.contacts.getByEmailBatch(["three@other.example", "none@example.com"])) as Record<string, Profile>;
    expect(Object.keys(byEmails)).toEqual([String(vids[2])]);

    const recent = (await client.contacts.getRecentlyModified({ count: 2 })) as { contacts: { vid: number }[]; "has-more": boolean; "time-offset": number; "vid-offset": number };
    expect(recent.contacts).toHaveLength(2);
    expect(recent["has-more"]).toBe(true);
    const rest = (await client.contacts.getRecentlyModified({ count: 2, timeOffset: recent["time-offset"], vidOffset: recent["vid-offset"] })) as { contacts: { vid: number }[] };
    expect([...recent.contacts, ...rest.contacts].map((c) => c.vid).sort()).toEqual([...vids].sort());
    const created = (await client.contacts.getRecentlyCreated({ count: 100 })) as { contacts: { vid: number }[] };
    expect(created.contacts).toHaveLength(3);

    const found = (await client.contacts.search("acme", { count: 1 })) as { contacts: Profile[]; total: number; "has-more": boolean; offset: number };
    expect([found.total, found["has-more"], found.offset, found.contacts.length]).toEqual([2, true, 1, 1]);
  });

  it("merge answers the recorded SUCCESS, and the merged-away vid reads as the survivor", async () => {
    const t = await tenant();
    const client = hs(t);
    const primary = ((await client.contacts.create(props({ email: "primary@example.com" }))) as Profile).vid;
    const secondary = ((await client.contacts.create(props({ email: "secondary@example.com" }))) as Profile).vid;
    expect(await client.contacts.merge(String(primary), String(secondary))).toBe("SUCCESS");
    const survivor = (await client.contacts.getById(String(secondary))) as Profile;
    expect([survivor.vid, survivor["merged-vids"]]).toEqual([primary, [secondary, primary]]);
    const again = await rejection(client.contacts.merge(String(primary), String(secondary)));
    expect(again.statusCode).toBe(400);
  });
});

describe("@hubspot/api-client 14.0.1: apiRequest on the v1 contact routes", () => {
  it("creates, reads, updates, searches, merges and deletes", async () => {
    const t = await tenant();
    const client = new Client({ accessToken: t.oauth, basePath: workerUrl() });
    const create = await client.apiRequest({ method: "POST", path: "/contacts/v1/contact", body: props({ email: "sdk@example.com", firstname: "Sdk" }) });
    expect(create.status).toBe(200);
    const vid = ((await create.json()) as Profile).vid;
    const other = ((await (await client.apiRequest({ method: "POST", path: "/contacts/v1/contact", body: props({ email: "sdk2@example.com" }) })).json()) as Profile).vid;
    const calls: [string, string, unknown, number][] = [
      ["GET", `/contacts/v1/contact/vid/${vid}/profile`, undefined, 200],
      ["GET", "/contacts/v1/contact/email/sdk@example.com/profile", undefined, 200],
      ["GET", `/contacts/v1/contact/vids/batch?vid=${vid}&vid=${other}`, undefined, 200],
      ["GET", "/contacts/v1/contact/emails/batch?email=sdk@example.com", undefined, 200],
      ["POST", `/contacts/v1/contact/vid/${vid}/profile`, props({ lastname: "Client" }), 204],
      ["POST", "/contacts/v1/contact/email/sdk@example.com/profile", props({ city: "Cambridge" }), 204],
      ["POST", "/contacts/v1/contact/createOrUpdate/email/sdk3@example.com", props({ firstname: "Three" }), 200],
      ["POST", "/contacts/v1/contact/batch", [{ email: "sdk4@example.com", properties: [] }], 202],
      ["GET", "/contacts/v1/lists/recently_updated/contacts/recent?count=2", undefined, 200],
      ["GET", "/contacts/v1/lists/all/contacts/recent?count=2", undefined, 200],
      ["GET", "/contacts/v1/search/query?q=sdk", undefined, 200],
      ["POST", `/contacts/v1/contact/merge-vids/${vid}`, { vidToMerge: other }, 200],
      ["DELETE", `/contacts/v1/contact/vid/${vid}`, undefined, 200],
      ["GET", "/contacts/v1/contact/utk/unknown/profile", undefined, 404],
    ];
    for (const [method, path, body, status] of calls) {
      const res = await client.apiRequest({ method, path, body: body as object | undefined });
      expect([method, path, res.status]).toEqual([method, path, status]);
    }
    const search = (await (await client.apiRequest({ path: "/contacts/v1/search/query?q=sdk" })).json()) as { total: number };
    expect(search.total).toBe(2); // sdk3 and sdk4; the merged and deleted ones are gone
  });
});
