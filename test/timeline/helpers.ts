/** Helpers shared by the timeline tests: setup through the developer key, events through the OAuth token. */
import { expect } from "vitest";
import { call, type Tenant } from "../helpers/api";

export const typesPath = (appId: number) => `/integrations/v1/${appId}/timeline/event-types`;
export const eventPath = (appId: number) => `/integrations/v1/${appId}/timeline/event`;

/** A developer-key call, sent as `?hapikey=` the way old clients do (plus their ignored `userId`). */
export function dev(t: Tenant, method: string, path: string, body?: unknown) {
  const sep = path.includes("?") ? "&" : "?";
  return call(method, `${path}${sep}hapikey=${t.developerKey}&userId=12345`, { body });
}

export async function createType(t: Tenant, body: Record<string, unknown> = {}) {
  const res = await dev(t, "POST", typesPath(t.appId), { name: "Webinar", ...body });
  expect(res.status, res.text).toBe(200);
  return res.json as { id: number; objectType: string };
}

export async function createProp(t: Tenant, typeId: number, body: Record<string, unknown>) {
  const res = await dev(t, "POST", `${typesPath(t.appId)}/${typeId}/properties`, body);
  expect(res.status, res.text).toBe(200);
  return res.json as { id: number; name: string };
}

export function putEvent(t: Tenant, body: Record<string, unknown>, token = t.oauth, method = "PUT") {
  return call(method, eventPath(t.appId), { token, body });
}

export async function expectStored(t: Tenant, body: Record<string, unknown>) {
  const res = await putEvent(t, body);
  expect(res.status, res.text).toBe(204);
  expect(res.text).toBe("");
  expect(res.headers.get("content-type")).toBeNull();
}

export function getEvent(t: Tenant, typeId: number, id: string, token = t.oauth) {
  return call("GET", `${eventPath(t.appId)}/${typeId}/${encodeURIComponent(id)}`, { token });
}

export async function createRecord(t: Tenant, type: "contacts" | "companies" | "deals", properties: Record<string, string>) {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}

/** The named properties of a record (v3 answers only what is asked; an unset one is null). */
export async function readRecord(t: Tenant, type: "contacts" | "companies" | "deals", id: number, names: string[]) {
  const res = await call("GET", `/crm/v3/objects/${type}/${id}?properties=${names.join(",")}`, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return res.json.properties as Record<string, string | null>;
}

/** Every property a contact holds, system ones left out (the v1 profile answers them all). */
export async function storedNames(t: Tenant, id: number) {
  const res = await call("GET", `/contacts/v1/contact/vid/${id}/profile`, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return Object.keys(res.json.properties).filter((k) => !["hs_object_id", "createdate", "lastmodifieddate"].includes(k));
}

/** The contacts with this email, each with its email and the named properties. */
export async function findContact(t: Tenant, email: string, names: string[] = []) {
  const res = await call("GET", `/crm/v3/objects/contacts?limit=100&properties=${["email", ...names].join(",")}`, { token: t.pat });
  expect(res.status).toBe(200);
  return (res.json.results as { id: string; properties: Record<string, string | null> }[]).filter((c) => c.properties.email === email);
}

export function timeline(t: Tenant, type: string, id: number, query = "", token = t.pat) {
  return call("GET", `/crm/v3/objects/${type}/${id}/timeline${query}`, { token });
}
