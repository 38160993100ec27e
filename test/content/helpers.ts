/// <reference types="vite/client" />
/** Helpers for the content tests: blog fixtures and the recorded traffic of the real service. */
import { expect } from "vitest";
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

export interface Recording {
  path: string;
  method: string;
  status: number;
  query: Record<string, string>;
  requestBody: unknown;
  responseBody: unknown;
}

// The recordings live beside the repository (`../shared`, or `../../shared` from a worktree under wt/);
// they are read in place, never copied into the repo.
const RECORDINGS = import.meta.glob<Recording>(
  [
    "/../shared/reference/traffic/*/blog_posts_v2_*.json",
    "/../shared/reference/traffic/*/smtpapi_v1__*.json",
    "/../../shared/reference/traffic/*/blog_posts_v2_*.json",
    "/../../shared/reference/traffic/*/smtpapi_v1__*.json",
  ],
  { eager: true, import: "default" },
);

/** A recording by its path under reference/traffic/, e.g. `hubspot-ruby/blog_posts_v2_get__blog_posts__0_4d332477.json`. */
export function recording(relative: string): Recording {
  const key = Object.keys(RECORDINGS).find((k) => k.endsWith(`/reference/traffic/${relative}`));
  if (!key) throw new Error(`recording ${relative} not found (is ../shared/reference/traffic present?)`);
  return RECORDINGS[key]!;
}

/** Every recording whose path under reference/traffic/ starts with `prefix`, as [relative path, recording], sorted by path. */
export function recordingsUnder(prefix: string): [string, Recording][] {
  const found = new Map<string, Recording>();
  for (const [key, rec] of Object.entries(RECORDINGS)) {
    const relative = key.slice(key.indexOf("/reference/traffic/") + "/reference/traffic/".length);
    if (relative.startsWith(prefix) && !found.has(relative)) found.set(relative, rec);
  }
  return [...found].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }));
}

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
