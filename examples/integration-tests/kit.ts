/**
 * @module What the tests use of crm-edge's test kit (docs/reference/testkit.md), through its operator API: a
 * DEVELOPER_TEST account per test, loaded from a fixture, with a private app's token; fault rules, snapshots,
 * the search index's lag and the account's clock. Nothing here is needed by the integration itself.
 *
 * The server and its operator token come from the environment, with the defaults of `npm run dev`:
 * BASE (http://localhost:8787) and ADMIN_TOKEN (dev-admin-token, from .dev.vars.example).
 */
import { readFileSync } from "node:fs";
import type { Client } from "@hubspot/api-client";
import { crmClient, ensureShopProperties, type ShopOrder } from "./sync";

// Read when called, not when imported: a runner may set them after loading this module.
export const baseUrl = () => (process.env.BASE ?? "http://localhost:8787").replace(/\/$/, "");
const adminToken = () => process.env.ADMIN_TOKEN ?? "dev-admin-token";

/** The shop fixture of the repository: 3 contacts, 2 companies, 2 deals with line items, a ticket, a note. */
export const SHOP_FIXTURE = JSON.parse(readFileSync(new URL("../fixtures/shop.json", import.meta.url), "utf8")) as Record<string, unknown>;

/** One operator call; throws with the status and body on anything but a 2xx. */
export async function admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl()}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken()}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} /admin/v1${path} -> ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface TestAccount {
  portalId: number;
  /** The private app's token: what the integration is configured with. */
  token: string;
  /** A client of the integration for this account (three attempts a call). */
  client: Client;
  /** The fixture's refs: each record's id. */
  refs: Record<string, string>;
  /** A raw call with the account's token (for what the client hides: headers, statuses). */
  call: (method: string, path: string, body?: unknown) => Promise<Response>;
  faults: (rules: unknown[]) => Promise<void>;
  faultStats: () => Promise<{ id: string; calls: number; faults: number; timesLeft: number | null }[]>;
  clearFaults: () => Promise<void>;
  snapshot: (name: string) => Promise<{ counts: Record<string, number> }>;
  restore: (name: string) => Promise<void>;
  reset: () => Promise<void>;
  searchLag: (ms: number) => Promise<void>;
  clock: () => Promise<{ now: string; offsetSeconds: number }>;
  advance: (seconds: number) => Promise<{ now: string; offsetSeconds: number }>;
}

let seq = 0;

/**
 * A new DEVELOPER_TEST account of its own, loaded with `fixture` (the shop by default; `null` for none), with a
 * private app and the integration's deal property. Every test makes one, so tests share nothing and run in
 * parallel.
 *
 * Every client gets the same retries: `@hubspot/api-client` keeps its retry (and limiter) settings in one
 * object per process, set by the last `new Client(...)`, and an API object of the client takes the settings
 * that are current when it is first used. Clients with different settings in one process (tests running
 * concurrently) would get each other's.
 */
export async function testAccount(opts: { fixture?: unknown } = {}): Promise<TestAccount> {
  const name = `integration-test-${process.pid}-${Date.now().toString(36)}-${seq++}`;
  // A rate limit far above the default 110 per 10 s: the tests make bursts of calls, and a 429 they did not ask for would be noise.
  const { portalId } = await admin<{ portalId: number }>("POST", "/accounts", { name, accountType: "DEVELOPER_TEST", rateLimit: 100_000 });
  const { token } = await admin<{ token: string }>("POST", `/accounts/${portalId}/private-apps`, { name: "shop-sync" });
  const fixture = opts.fixture === undefined ? SHOP_FIXTURE : opts.fixture;
  const refs = fixture === null ? {} : (await admin<{ refs: Record<string, string> }>("POST", `/accounts/${portalId}/fixtures`, fixture)).refs;
  const client = crmClient(baseUrl(), token);
  await ensureShopProperties(client);
  const account = `/accounts/${portalId}`;
  return {
    portalId,
    token,
    client,
    refs,
    call: (method, path, body) =>
      fetch(`${baseUrl()}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    faults: async (rules) => void (await admin("PUT", `${account}/faults`, { rules })),
    faultStats: async () => (await admin<{ rules: { id: string; calls: number; faults: number; timesLeft: number | null }[] }>("GET", `${account}/faults`)).rules,
    clearFaults: async () => void (await admin("DELETE", `${account}/faults`)),
    snapshot: (snap) => admin("POST", `${account}/snapshots`, { name: snap }),
    restore: async (snap) => void (await admin("POST", `${account}/snapshots/${snap}/restore`)),
    reset: async () => void (await admin("POST", `${account}/reset`)),
    searchLag: async (ms) => void (await admin("PATCH", `${account}/quirks`, { searchLagMs: ms })),
    clock: () => admin("GET", `${account}/clock`),
    advance: (seconds) => admin("POST", `${account}/clock`, { advanceSeconds: seconds }),
  };
}

/** `n` orders of the shop, numbered from `from`, by `customers` customers in turn. */
export function orders(n: number, opts: { from?: number; customers?: number; status?: ShopOrder["status"]; domain?: string } = {}): ShopOrder[] {
  const from = opts.from ?? 5000;
  const customers = opts.customers ?? Math.max(1, Math.ceil(n / 2));
  const statuses: ShopOrder["status"][] = ["paid", "pending", "refunded"];
  return Array.from({ length: n }, (_, i) => {
    const c = i % customers;
    return {
      id: `ord_${from + i}`,
      number: String(from + i),
      total: 10 + ((i * 7) % 90) + 0.5,
      status: opts.status ?? statuses[i % 3]!,
      customer: { email: `customer${c}@${opts.domain ?? "shop.example"}`, firstName: `Customer${c}`, lastName: "Example" },
      placedAt: new Date(Date.UTC(2026, 2, 1 + (i % 28), 12)).toISOString(),
    };
  });
}

/** Reads every deal of the account with the given properties (through pages), by the client. */
export async function allDeals(client: Client, properties: string[] = ["dealname", "amount", "dealstage", "shop_order_id"]) {
  return client.crm.deals.getAll(undefined, undefined, properties);
}

/** The contact ids a deal is associated with. */
export async function contactsOfDeal(client: Client, dealId: string): Promise<string[]> {
  const res = await client.crm.associations.v4.basicApi.getPage("deals", dealId, "contacts");
  return res.results.map((r) => String(r.toObjectId));
}

/** Polls `check` every 250 ms until it returns true or `ms` pass; the last value it returned. */
export async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}
