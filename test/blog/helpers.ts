/** Helpers for the content tests: blog fixtures and shape checks (shapes: test/fixtures/legacy-shapes.ts). */
import { expect } from "vitest";
import type { Shape } from "../fixtures/legacy-shapes";
import { call, unique, type Tenant } from "../helpers/api";

export const V2 = "/content/api/v2";
export const TOKENS = "/email/public/v1/smtpapi/tokens";

export async function createAuthor(t: Tenant, body: Record<string, unknown> = {}) {
  const res = await call("POST", `${V2}/blog-authors`, { token: t.oauth, body: { full_name: "Levi Test", email: "levi@example.com", ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

export async function createTopic(t: Tenant, body: Record<string, unknown> = {}) {
  const res = await call("POST", `${V2}/topics`, { token: t.oauth, body: { name: unique("Topic "), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

export async function createPost(t: Tenant, body: Record<string, unknown> = {}) {
  const res = await call("POST", `${V2}/blog-posts`, { token: t.oauth, body: { name: "My post", slug: `blog/${unique("post-")}`, post_body: "<p>Hello</p>", ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

export async function publish(t: Tenant, id: number, action = "schedule-publish") {
  const res = await call("POST", `${V2}/blog-posts/${id}/publish-action`, { token: t.oauth, body: { action } });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** GET of the public page, by the path part of a post's `url`. */
export const page = (url: string) => call("GET", new URL(url).pathname);

export const pathOf = (url: string) => new URL(url).pathname;

/** JSON type of a value, telling null, arrays and objects apart. */
export function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** Asserts `ours` has every key of `recorded` with the same JSON type; returns the keys checked. */
export function expectSameShape(ours: Record<string, unknown>, recorded: Record<string, unknown>, where = "") {
  const mismatches: string[] = [];
  for (const [key, value] of Object.entries(recorded)) {
    if (!(key in ours)) mismatches.push(`${where}${key}: missing`);
    else if (jsonType(ours[key]) !== jsonType(value)) mismatches.push(`${where}${key}: ${jsonType(ours[key])} instead of ${jsonType(value)}`);
  }
  expect(mismatches).toEqual([]);
  return Object.keys(recorded);
}

/** Asserts `ours` has every key of a fixture shape with its JSON type; returns the keys checked. */
export function expectShape(ours: Record<string, unknown>, shape: Shape, where = "") {
  const mismatches = Object.entries(shape)
    .filter(([key, type]) => !(key in ours) || jsonType(ours[key]) !== type)
    .map(([key, type]) => `${where}${key}: ${key in ours ? jsonType(ours[key]) : "missing"} instead of ${type}`);
  expect(mismatches).toEqual([]);
  return Object.keys(shape);
}
