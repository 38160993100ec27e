/**
 * hubspot-api 2.17 (npm `hubspot-api`, HubSpot's web team's client), unmodified, runs every one of its
 * `contacts.*` methods against the Worker (issues 17 and 18).
 *
 * The client has no base-URL option: it builds every URL on the constant `https://api.hubapi.com` and sends
 * it with the package-level `axios`. The test points it at the Worker the way an integrator testing against
 * a local server would, with an axios request interceptor that swaps the origin; the client's own paths,
 * query strings, headers and bodies go out as it builds them (docs/reference/clients.md).
 *
 * 2.17.2-beta.2 is pinned because 2.17.3, the newest on npm, was published without the `dist/bundle.min.js`
 * its `main` names, so `require("hubspot-api")` fails there whatever the server.
 */
import { createRequire } from "node:module";
import HubSpotClient from "hubspot-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenant, workerUrl, rejection as rejectionOf } from "./helpers";

interface AxiosRequest {
  url?: string;
}
interface AxiosLike {
  interceptors: { request: { use(f: (c: AxiosRequest) => AxiosRequest): number; eject(id: number): void } };
}

// The same module instance the client requires: resolved from the client's own location.
const requireFromClient = createRequire(createRequire(import.meta.url).resolve("hubspot-api"));
const axios = requireFromClient("axios") as AxiosLike;
const seen: string[] = [];
let interceptor = -1;

beforeAll(() => {
  interceptor = axios.interceptors.request.use((config) => {
    seen.push(config.url ?? "");
    return { ...config, url: config.url?.replace(/^https:\/\/api\.hubapi\.com/, workerUrl()) };
  });
});
afterAll(() => axios.interceptors.request.eject(interceptor));

interface Profile {
  vid: number;
  "merged-vids": number[];
  properties: Record<string, { value: string }>;
}
interface AxiosError {
  response: { status: number; data: Record<string, unknown> };
}
const rejection = (p: PromiseLike<unknown>) => rejectionOf<AxiosError>(p);

describe("hubspot-api 2.17: every contacts.* method on the v1 contacts API", () => {
  it("createOrUpdateContact, getById, getByEmail, getByUtk, updateContactByVid, deleteContact", async () => {
    const t = await tenant();
    const hs = new HubSpotClient({ accessToken: t.oauth });

    // The client returns `response.data.data` here, which the recorded `{vid, isNew}` body does not have:
    // it resolves with undefined against the real service too. The contact is created all the same.
    expect(await hs.contacts.createOrUpdateContact({ email: "grace@example.com", firstname: "Grace" })).toBeUndefined();
    const byEmail = (await hs.contacts.getByEmail("grace@example.com")) as Profile;
    expect(byEmail.properties.firstname!.value).toBe("Grace");
    const vid = byEmail.vid;

    // The client's defaults ride along on every read: propertyMode=value_only&formSubmissionMode=none.
    const byId = (await hs.contacts.getById(vid, { property: "firstname" })) as Profile;
    expect(byId.properties).toEqual({ firstname: { value: "Grace" } });

    await fetch(`${workerUrl()}/tracking/v1/identify`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.oauth}`, "content-type": "application/json" },
      body: JSON.stringify({ utk: "hubspot-api-utk", email: "grace@example.com" }),
    });
    expect(((await hs.contacts.getByUtk("hubspot-api-utk")) as Profile).vid).toBe(vid);

    expect(await hs.contacts.updateContactByVid(vid, { lastname: "Hopper" })).toEqual({ msg: `Successfully updated contact details for ${vid}` });
    expect(((await hs.contacts.getById(vid)) as Profile).properties.lastname!.value).toBe("Hopper");

    expect(await hs.contacts.deleteContact(vid)).toEqual({ msg: `Successfully delete contact details for ${vid}` });
    const gone = await rejection(hs.contacts.getById(vid));
    expect(gone.response.status).toBe(404);
    expect(gone.response.data.message).toBe("contact does not exist");

    // Every call went to the client's own URL, which the interceptor only re-hosted.
    expect(seen.every((url) => url.startsWith("https://api.hubapi.com/contacts/v1/"))).toBe(true);
  });

  it("batchUpdateContacts (by email and by vid), getContacts, getRecentlyModified, search", async () => {
    const t = await tenant();
    const hs = new HubSpotClient({ accessToken: t.oauth });
    expect(
      await hs.contacts.batchUpdateContacts([
        { id: "one@batch.example", updates: { firstname: "One", company: "Acme" } },
        { id: "two@batch.example", updates: { firstname: "Two", company: "Acme" } },
        { id: "three@other.example", updates: { firstname: "Three" } },
      ]),
    ).toEqual({ msg: "Successfully updated contact properties" });

    const all = (await hs.contacts.getContacts({ count: 10 })) as { contacts: { vid: number }[]; "has-more": boolean };
    expect([all.contacts.length, all["has-more"]]).toEqual([3, false]);
    const one = all.contacts[0]!.vid;
    await hs.contacts.batchUpdateContacts([{ id: one, updates: { city: "Paris" } }]);
    expect(((await hs.contacts.getById(one)) as Profile).properties.city!.value).toBe("Paris");

    const recent = (await hs.contacts.getRecentlyModified({ count: 2 })) as { contacts: { vid: number }[]; "has-more": boolean; "time-offset": number; "vid-offset": number };
    expect([recent.contacts.length, recent["has-more"], recent.contacts[0]!.vid]).toEqual([2, true, one]);
    const rest = (await hs.contacts.getRecentlyModified({ count: 2, timeOffset: recent["time-offset"], vidOffset: recent["vid-offset"] })) as { contacts: { vid: number }[] };
    expect([...recent.contacts, ...rest.contacts].map((c) => c.vid).sort()).toEqual(all.contacts.map((c) => c.vid).sort());

    const found = (await hs.contacts.search("acme", { count: 1 })) as { contacts: Profile[]; total: number; "has-more": boolean; offset: number };
    expect([found.total, found["has-more"], found.offset, found.contacts.length]).toEqual([2, true, 1, 1]);
  });

  it("errors reach the caller as the client passes them on", async () => {
    const t = await tenant();
    const hs = new HubSpotClient({ accessToken: t.oauth });
    // A refused token: axios rejects with the 401 envelope and the Bearer challenge.
    const refused = await rejection(new HubSpotClient({ accessToken: "not-a-token" }).contacts.getByEmail("x@example.com"));
    expect(refused.response.status).toBe(401);
    expect(refused.response.data).toMatchObject({ status: "error", category: "INVALID_AUTHENTICATION" });
    // A bad contact in a batch: the 400 names it and nothing is written.
    const bad = await rejection(hs.contacts.batchUpdateContacts([{ id: "ok@example.com", updates: {} }, { id: "not_an_email", updates: {} }]));
    expect(bad.response.status).toBe(400);
    expect(((await hs.contacts.getContacts({})) as { contacts: unknown[] }).contacts).toEqual([]);
    // The client turns a failed search into null and a failed recent list into the bare axios message.
    expect(await new HubSpotClient({ accessToken: "not-a-token" }).contacts.search("x")).toBeNull();
    await expect(new HubSpotClient({ accessToken: "not-a-token" }).contacts.getRecentlyModified({})).rejects.toBe("Request failed with status code 401");
  });
});
