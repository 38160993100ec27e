/**
 * The authentication matrix, generated over the whole route table (against broken authentication and broken
 * function-level authorization, OWASP API2 and API5): every account-level route refuses no credential,
 * unknown, malformed, expired and revoked (uninstalled) tokens, refresh tokens, account hapikeys, developer
 * keys, and tokens without the scope; every developer-key route refuses account tokens; a route of one app
 * (`:appId`) that takes the app's developer key and its OAuth token (timeline setup, app sync errors) still
 * takes the key; every operator route refuses everything but the operator token. The requests are the
 * owner's own valid requests, so nothing but the credential is wrong.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import type { RouteDef } from "../../src/http/route";
import { allRoutes } from "../../src/routes";
import { admin, ADMIN, BASE, call, expectError, send, unique } from "../helpers/api";
import { expire } from "../helpers/auth-suite";
import { authorize, exchange, refresh } from "../helpers/oauth-flow";
import { buildWorld, ownParam, type World } from "../helpers/world";

const key = (r: RouteDef) => `${r.method} ${r.path}`;
const kinds = (r: RouteDef) => r.auth.kinds as readonly string[];
const accountRoutes = allRoutes.filter((r) => kinds(r).includes("oauth") || kinds(r).includes("private_app"));
const developerRoutes = allRoutes.filter((r) => kinds(r).length === 1 && kinds(r)[0] === "developer");
/** Account routes that also take the developer key of the path's app (timeline setup, app sync errors). */
const appRoutes = accountRoutes.filter((r) => kinds(r).includes("developer") && /\/:appId(\/|$)/.test(r.path));
const adminRoutes = allRoutes.filter((r) => kinds(r).includes("admin"));
/** The web app's pages and their JSON helpers: a signed-in session, never a bearer token. */
const sessionRoutes = allRoutes.filter((r) => kinds(r).length === 1 && kinds(r)[0] === "session");

/** Valid bodies of the association label, limit and batch routes (both path forms). */
function associationBodies(ids: World["ids"]): Record<string, unknown> {
  const pairs = { inputs: [{ from: { id: String(ids.contact) }, to: { id: String(ids.company) } }] };
  const typed = { inputs: [{ from: { id: String(ids.contact) }, to: { id: String(ids.company) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }] };
  const limits = { inputs: [{ category: "HUBSPOT_DEFINED", typeId: 279, maxToObjectIds: 100 }] };
  const forms = (path: string, body: unknown) => [[`POST ${path}`, body], [`POST ${path.replace("/crm/v4/associations", "/crm/associations/v4")}`, body]];
  return Object.fromEntries([
    ...forms("/crm/v4/associations/:fromObjectType/:toObjectType/labels", { name: "auth_matrix", label: "A" }),
    [`PUT /crm/v4/associations/:fromObjectType/:toObjectType/labels`, { associationTypeId: ids.associationLabel, label: "A" }],
    [`PUT /crm/associations/v4/:fromObjectType/:toObjectType/labels`, { associationTypeId: ids.associationLabel, label: "A" }],
    ...forms("/crm/v4/associations/definitions/configurations/:fromObjectType/:toObjectType/batch/create", limits),
    ...forms("/crm/v4/associations/definitions/configurations/:fromObjectType/:toObjectType/batch/update", limits),
    ...forms("/crm/v4/associations/definitions/configurations/:fromObjectType/:toObjectType/batch/purge", { inputs: [{ category: "HUBSPOT_DEFINED", typeId: 279 }] }),
    ["POST /crm/v4/associations/:fromObjectType/:toObjectType/batch/read", { inputs: [{ id: String(ids.contact) }] }],
    ["POST /crm/v4/associations/:fromObjectType/:toObjectType/batch/create", typed],
    ["POST /crm/v4/associations/:fromObjectType/:toObjectType/batch/associate/default", pairs],
    ["POST /crm/v4/associations/:fromObjectType/:toObjectType/batch/archive", { inputs: [{ from: { id: String(ids.contact) }, to: [{ id: String(ids.company) }] }] }],
    ["POST /crm/v4/associations/:fromObjectType/:toObjectType/batch/labels/archive", typed],
    ["POST /crm/v3/associations/:fromObjectType/:toObjectType/batch/read", { inputs: [{ id: String(ids.contact) }] }],
    ["POST /crm/v3/associations/:fromObjectType/:toObjectType/batch/create", pairs],
    ["POST /crm/v3/associations/:fromObjectType/:toObjectType/batch/archive", pairs],
  ]);
}

/** The owner's own, valid request on a route: path parameters from the owner's resources. */
function ownRequest(r: RouteDef, w: World): { path: string; body?: unknown } {
  const ids = w.ids;
  const value = (name: string) => {
    const v = ownParam(r, name, w);
    if (v === undefined) throw new Error(`auth matrix: no value for :${name} of ${key(r)}; add it to ownParam in test/helpers/world.ts`);
    return v;
  };
  let path = r.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => value(name));
  // Validation runs before the scope checks that depend on a path parameter: these must be valid.
  const body: Record<string, unknown> = {
    "POST /crm/v3/objects/:objectType": { properties: {} },
    "PATCH /crm/v3/objects/:objectType/:objectId": { properties: {} },
    "POST /crm/v3/objects/:objectType/:objectId/cards/:cardId/actions": { userId: w.a.userId, action: ids.cardAction },
    "POST /crm/v3/objects/:objectType/batch/create": { inputs: [{ properties: {} }] },
    "POST /crm/v3/objects/:objectType/batch/read": { inputs: [{ id: String(ids.contact) }] },
    "POST /crm/v3/objects/:objectType/batch/update": { inputs: [{ id: String(ids.contact), properties: {} }] },
    "POST /crm/v3/objects/:objectType/batch/upsert": { inputs: [{ id: ids.contactEmail, idProperty: "email", properties: {} }] },
    "POST /crm/v3/objects/:objectType/batch/archive": { inputs: [{ id: String(ids.contact) }] },
    "POST /crm/v3/properties/:objectType": { name: "p", label: "P", type: "string", fieldType: "text", groupName: "contactinformation" },
    "POST /crm/v3/properties/:objectType/groups": { name: "matrix_group", label: "Matrix group" },
    "POST /crm/v3/objects/:objectType/merge": { primaryObjectId: String(ids.contact), objectIdToMerge: String(ids.bContact) },
    "POST /crm/v3/objects/contacts/gdpr-delete": { objectId: String(ids.contact) },
    "POST /crm/v3/properties/:objectType/batch/create": { inputs: [{ name: "p", label: "P", type: "string", fieldType: "text", groupName: "contactinformation" }] },
    "POST /crm/v3/properties/:objectType/batch/read": { archived: false, inputs: [{ name: "email" }] },
    "POST /crm/v3/properties/:objectType/batch/archive": { inputs: [{ name: "p" }] },
    "PUT /crm/v4/objects/:objectType/:objectId/associations/:toObjectType/:toObjectId": [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }],
    "POST /crm-object-schemas/v3/schemas": { name: "matrix_thing", labels: { singular: "T", plural: "Ts" }, requiredProperties: [], properties: [{ name: "title", label: "Title", type: "string", fieldType: "text" }], associatedObjects: [] },
    "POST /crm-object-schemas/v3/schemas/batch/read": { inputs: ["isolated_thing"] },
    "POST /crm-object-schemas/v3/schemas/:objectType/associations": { fromObjectTypeId: w.ids.schema, toObjectTypeId: "0-2" },
    "POST /crm/v3/schemas": { name: "matrix_thing", labels: { singular: "T", plural: "Ts" }, requiredProperties: [], properties: [{ name: "title", label: "Title", type: "string", fieldType: "text" }], associatedObjects: [] },
    "POST /crm/v3/schemas/batch/read": { inputs: ["isolated_thing"] },
    "POST /crm/v3/schemas/:objectType/associations": { fromObjectTypeId: w.ids.schema, toObjectTypeId: "0-2" },
    ...associationBodies(ids),
    "POST /crm/v3/pipelines/:objectType": { label: "P", displayOrder: 0, stages: [{ label: "S", displayOrder: 0, metadata: { probability: "0.5" } }] },
    "PUT /crm/v3/pipelines/:objectType/:pipelineId": { label: "P", displayOrder: 0, stages: [{ label: "S", displayOrder: 0, metadata: { probability: "0.5" } }] },
    "POST /crm/v3/pipelines/:objectType/:pipelineId/stages": { label: "S", displayOrder: 0, metadata: { probability: "0.5" } },
    "PUT /crm/v3/pipelines/:objectType/:pipelineId/stages/:stageId": { label: "S", displayOrder: 0, metadata: { probability: "0.5" } },
    "POST /crm/v3/lists": { name: `L ${crypto.randomUUID()}`, objectTypeId: "0-1", processingType: "MANUAL" },
    "PUT /crm/v3/lists/:listId/update-list-filters": { filterBranch: { filterBranchType: "OR", filters: [], filterBranches: [] } },
    "PUT /crm/v3/lists/:listId/memberships/add": [String(ids.contact)],
    "PUT /crm/v3/lists/:listId/memberships/remove": [String(ids.contact)],
    "POST /crm/v3/lists/idmapping": [String(ids.list)],
    "POST /crm/v3/lists/folders": { name: "F" },
    "PUT /crm/v3/lists/folders/move-list": { listId: String(ids.list), newFolderId: "0" },
    "POST /crm/v3/lists/records/memberships/batch/read": { inputs: [{ objectTypeId: "0-1", recordId: String(ids.contact) }] },
    "POST /contacts/v1/lists": { name: `L ${crypto.randomUUID()}` },
  };
  if (key(r) === "GET /crm/v3/objects/:objectType/:objectId/cards") path += `?userId=${w.a.userId}`;
  // The v1 contact batch reads and search take their keys in the query.
  const v1Query: Record<string, string> = {
    "GET /contacts/v1/contact/vids/batch": `?vid=${ids.contact}`,
    "GET /contacts/v1/contact/emails/batch": `?email=${encodeURIComponent(ids.contactEmail)}`,
    "GET /contacts/v1/search/query": "?q=owner",
    "PUT /crm/v3/lists/:listId/update-list-name": `?listName=${encodeURIComponent(ids.listName)}`,
    "GET /crm/v3/lists/idmapping": `?legacyListId=${ids.list}`,
    "PUT /crm/v3/lists/folders/:folderId/rename": "?newFolderName=F",
  };
  path += v1Query[key(r)] ?? "";
  if (r.path.startsWith("/extensions/sales-objects/v1/object-types") && r.method === "GET" && !r.path.endsWith(":objectTypeId")) path += `?applicationId=${w.a.appId}`;
  return { path, body: body[key(r)] ?? (r.body ? {} : undefined) };
}

interface Tokens {
  expired: string;
  revoked: string;
  revokedRefresh: string;
  narrowOauth: string;
  narrowPat: string;
}

let w: World;
let tk: Tokens;

beforeAll(async () => {
  w = await buildWorld();
  // Every extra credential belongs to the owner's account, so only the credential itself is wrong.
  const expired = (await admin("POST", `/admin/v1/accounts/${w.a.portalId}/installs`, { appId: w.a.appId })).access_token as string;
  await expire(expired);
  const gone = await admin("POST", "/admin/v1/apps", { name: unique("gone"), redirectUris: ["https://app.example.com/callback"] });
  const revoked = await admin("POST", `/admin/v1/accounts/${w.a.portalId}/installs`, { appId: gone.appId });
  await admin("DELETE", `/admin/v1/accounts/${w.a.portalId}/installs/${gone.appId}`);
  const narrowApp = await admin("POST", "/admin/v1/apps", { name: unique("narrow"), redirectUris: ["https://app.example.com/callback"] });
  const narrowOauth = (await admin("POST", `/admin/v1/accounts/${w.a.portalId}/installs`, { appId: narrowApp.appId, scopes: ["oauth"] })).access_token as string;
  const narrowPat = (await admin("POST", `/admin/v1/accounts/${w.a.portalId}/private-apps`, { name: "narrow", scopes: ["oauth"] })).token as string;
  tk = { expired, revoked: revoked.access_token, revokedRefresh: revoked.refresh_token, narrowOauth, narrowPat };
}, 60_000);

async function request(r: RouteDef, opts: { bearer?: string; header?: string; hapikey?: string } = {}) {
  const { path, body } = ownRequest(r, w);
  const headers: Record<string, string> = {};
  if (opts.header !== undefined) headers.authorization = opts.header;
  else if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  const url = opts.hapikey ? `${path}${path.includes("?") ? "&" : "?"}hapikey=${opts.hapikey}` : path;
  let payload: string | undefined;
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await send(new Request(`${BASE}${url}`, { method: r.method, headers, body: payload, redirect: "manual" }));
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text && (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined };
}

const MALFORMED = (token: string) => ["Basic Zm9vOmJhcg==", "Bearer", "Bearer ", `Token ${token}`, `Bearer ${token} extra`, `Bearer ${token.slice(0, -1)}`];

describe.each(accountRoutes.map((r) => [key(r), r] as const))("authentication: %s", (_name, r) => {
  it("no credential → 401 saying how to authenticate", async () => {
    expect(expectError(await request(r), 401, "INVALID_AUTHENTICATION").message).toContain("Authentication credentials not found");
  });
  it("unknown, malformed and refresh tokens → 401", async () => {
    for (const header of [...MALFORMED(w.a.oauth), `Bearer oat-${crypto.randomUUID()}`, `Bearer ${w.a.refresh}`]) {
      expectError(await request(r, { header }), 401, "INVALID_AUTHENTICATION");
    }
  });
  it("expired access token → 401 EXPIRED_AUTHENTICATION saying it expired", async () => {
    expect(expectError(await request(r, { bearer: tk.expired }), 401, "EXPIRED_AUTHENTICATION").message).toContain("expired");
  });
  it("token of an uninstalled app (revoked) → 401", async () => {
    expectError(await request(r, { bearer: tk.revoked }), 401, "INVALID_AUTHENTICATION");
  });
  it("account tokens as ?hapikey → 401 pointing to the Authorization header", async () => {
    for (const hapikey of [w.a.pat, w.a.oauth, `${unique("k")}`]) {
      expect(expectError(await request(r, { hapikey }), 401, "INVALID_AUTHENTICATION").message).toContain("Authorization header");
    }
  });
  if (!kinds(r).includes("developer")) {
    it("the app's developer key (Bearer or ?hapikey) → 403", async () => {
      expectError(await request(r, { bearer: w.a.developerKey }), 403, "FORBIDDEN");
      expectError(await request(r, { hapikey: w.a.developerKey }), 403, "FORBIDDEN");
    });
  }
  if (kinds(r).includes("oauth")) {
    it("OAuth token without the scope → 403 MISSING_SCOPES listing the required scopes", async () => {
      const body = expectError(await request(r, { bearer: tk.narrowOauth }), 403, "MISSING_SCOPES");
      expect(body.errors[0].context.requiredScopes.length).toBeGreaterThan(0);
    });
  }
  if (kinds(r).includes("private_app")) {
    it("private-app token without the scope → 403 MISSING_SCOPES", async () => {
      expectError(await request(r, { bearer: tk.narrowPat }), 403, "MISSING_SCOPES");
    });
  } else {
    it("private-app token on an OAuth-only route → 403", async () => {
      expectError(await request(r, { bearer: w.a.pat }), 403, "FORBIDDEN");
    });
  }
  if (r.method === "GET") {
    it("control: the owner's own token gets 200", async () => {
      const res = await request(r, { bearer: kinds(r).includes("private_app") ? w.a.pat : w.a.oauth });
      expect(res.status, res.text).toBe(200);
    });
  }
});

describe.each(developerRoutes.map((r) => [key(r), r] as const))("authentication: %s (developer key)", (_name, r) => {
  it("no credential, unknown, malformed and refresh tokens → 401", async () => {
    expectError(await request(r), 401, "INVALID_AUTHENTICATION");
    for (const header of [...MALFORMED(w.a.developerKey), `Bearer ${w.a.refresh}`]) expectError(await request(r, { header }), 401, "INVALID_AUTHENTICATION");
    expectError(await request(r, { hapikey: crypto.randomUUID() }), 401, "INVALID_AUTHENTICATION");
  });
  it("account tokens → 403; as ?hapikey → 401", async () => {
    for (const bearer of [w.a.oauth, w.a.pat]) expectError(await request(r, { bearer }), 403, "FORBIDDEN");
    for (const hapikey of [w.a.oauth, w.a.pat]) expectError(await request(r, { hapikey }), 401, "INVALID_AUTHENTICATION");
  });
  if (r.method === "GET") {
    it("control: the app's own developer key gets 200, as Bearer and as ?hapikey", async () => {
      expect((await request(r, { bearer: w.a.developerKey })).status).toBe(200);
      expect((await request(r, { hapikey: w.a.developerKey })).status).toBe(200);
    });
  }
});

describe.each(appRoutes.map((r) => [key(r), r] as const))("authentication: %s (developer key or the app's OAuth token)", (_name, r) => {
  it("no credential, unknown developer key as ?hapikey → 401", async () => {
    expectError(await request(r), 401, "INVALID_AUTHENTICATION");
    expectError(await request(r, { hapikey: crypto.randomUUID() }), 401, "INVALID_AUTHENTICATION");
  });
  if (r.method === "GET") {
    it("control: the app's own developer key gets 200, as Bearer and as ?hapikey", async () => {
      expect((await request(r, { bearer: w.a.developerKey })).status).toBe(200);
      expect((await request(r, { hapikey: w.a.developerKey })).status).toBe(200);
    });
  }
});

describe.each(adminRoutes.map((r) => [key(r), r] as const))("authentication: %s (operator)", (_name, r) => {
  it("anything but the operator token → 401", async () => {
    expectError(await request(r), 401, "INVALID_AUTHENTICATION");
    for (const bearer of [w.a.oauth, w.a.pat, w.a.developerKey, `${ADMIN}x`, ADMIN.slice(0, -1)]) expectError(await request(r, { bearer }), 401, "INVALID_AUTHENTICATION");
    expectError(await request(r, { hapikey: ADMIN }), 401, "INVALID_AUTHENTICATION");
    expectError(await request(r, { header: `Basic ${btoa(`admin:${ADMIN}`)}` }), 401, "INVALID_AUTHENTICATION");
  });
});

describe.each(sessionRoutes.map((r) => [key(r), r] as const))("web session: %s", (_name, r) => {
  /** Pages send a signed-out browser to sign in; the page scripts' JSON endpoints answer 401. */
  const refused = (res: Awaited<ReturnType<typeof send>>) => {
    if (r.path.startsWith("/app/api/")) expect(res.status).toBe(401);
    else {
      expect([302, 303]).toContain(res.status);
      expect(res.headers.get("location")).toMatch(/^\/login\?next=/);
    }
  };
  const path = r.path.replace(":objectType", "contacts").replace(/:[A-Za-z]+/g, "1");
  it("no session, or any bearer token instead of one, is refused", async () => {
    const body = r.method === "POST" ? JSON.stringify({ action: { type: "IFRAME", uri: "https://example.com/x", label: "x", width: 1, height: 1, actionToken: "x" } }) : undefined;
    for (const authorization of [undefined, `Bearer ${w.a.oauth}`, `Bearer ${w.a.pat}`, `Bearer ${w.a.developerKey}`, `Bearer ${ADMIN}`]) {
      const headers: Record<string, string> = body ? { "content-type": "application/json" } : {};
      if (authorization) headers.authorization = authorization;
      refused(await send(new Request(`${BASE}${path}`, { method: r.method, headers, body, redirect: "manual" })));
    }
  });
});

describe("the matrix covers the route table", () => {
  it("every route is public, operator, developer-key or account-level, and every non-public route is in the matrix", () => {
    const covered = new Set([...accountRoutes, ...developerRoutes, ...adminRoutes, ...sessionRoutes]);
    const rest = allRoutes.filter((r) => !covered.has(r));
    expect(rest.filter((r) => kinds(r).length > 0).map(key)).toEqual([]);
    expect(accountRoutes.length + developerRoutes.length + adminRoutes.length).toBeGreaterThan(60);
    // Timeline setup (9 routes) and app sync errors take the developer key or the app's OAuth token.
    expect(appRoutes.length).toBeGreaterThanOrEqual(10);
  });
});

describe("OAuth grants", () => {
  it("an authorization code past its expiry → 400 EXPIRED_AUTH_CODE (invalid_grant), and no tokens", async () => {
    const t = w.a;
    const code = await authorize(t);
    await env.DB.prepare("update auth_codes set expires_at = ? where code_hash = ?").bind(Date.now() - 1000, await sha256Hex(code)).run();
    const res = await exchange(t, code);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: "EXPIRED_AUTH_CODE", error: "invalid_grant" });
    expect(body.access_token).toBeUndefined();
  });

  it("the refresh token of an uninstalled app is refused and mints nothing", async () => {
    const app = await call("GET", `/oauth/v1/refresh-tokens/${tk.revokedRefresh}`);
    expectError(app, 404, "OBJECT_NOT_FOUND");
    const gone = await env.DB.prepare("select a.client_id, a.client_secret from apps a join credentials c on c.app_id = a.app_id where c.token_hash = ?")
      .bind(await sha256Hex(tk.revokedRefresh))
      .first<{ client_id: string; client_secret: string }>();
    const res = await refresh({ ...w.a, clientId: gone!.client_id, clientSecret: gone!.client_secret }, tk.revokedRefresh);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: "BAD_REFRESH_TOKEN", error: "invalid_grant" });
  });
});
