/**
 * @module The integration under test: a shop's orders synced into the CRM as deals, each associated with its
 * customer as a contact. It uses the unmodified `@hubspot/api-client` and nothing of crm-edge, so the same code
 * runs against the real service; only the client's `basePath` differs.
 *
 * Idempotent by design: contacts are upserted by `email`, deals by `shop_order_id` (a unique deal property that
 * `ensureShopProperties` makes), so syncing the same orders twice changes nothing, and a sync that failed half
 * way is finished by running it again.
 */
import { Client } from "@hubspot/api-client";

/** An order as the shop's API gives it. */
export interface ShopOrder {
  id: string;
  number: string;
  /** The order's total, in the account's currency. */
  total: number;
  status: "paid" | "pending" | "refunded";
  customer: { email: string; firstName?: string; lastName?: string };
  placedAt: string;
}

/** What a sync did: each order's deal id and each customer's contact id, by the shop's keys. */
export interface SyncResult {
  deals: Record<string, string>;
  contacts: Record<string, string>;
  /** Orders left out, with why (no customer email). */
  skipped: { id: string; reason: string }[];
}

/** The deal property that holds the shop's order id. */
export const ORDER_ID_PROPERTY = "shop_order_id";

/** Batch calls of the v3 API take at most 100 inputs. */
const BATCH = 100;

/** The deal stage of each order status, in the default pipeline. */
export const STAGE: Record<ShopOrder["status"], string> = { paid: "closedwon", pending: "appointmentscheduled", refunded: "closedlost" };

/**
 * A client for one account. The client retries by itself: a 5xx after 200 ms (× the attempt), a 429 after
 * 1 s for the per-second limit (search) or 10 s for the ten-secondly one; `retries` is its attempts in all.
 * The client keeps these settings per process, not per client: the last `new Client(...)` sets them for all.
 */
export function crmClient(baseUrl: string, accessToken: string, retries = 3): Client {
  return new Client({ accessToken, basePath: baseUrl, numberOfApiCallRetries: retries });
}

/** Makes the `shop_order_id` deal property if the account does not have it yet. */
export async function ensureShopProperties(client: Client): Promise<void> {
  try {
    await client.crm.properties.coreApi.create("deals", {
      name: ORDER_ID_PROPERTY,
      label: "Shop order id",
      type: "string",
      fieldType: "text",
      groupName: "dealinformation",
      hasUniqueValue: true,
    } as Parameters<typeof client.crm.properties.coreApi.create>[1]);
  } catch (e) {
    // 409: made by an earlier run.
    if ((e as { code?: number }).code !== 409) throw e;
  }
}

const chunks = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / BATCH) }, (_, i) => items.slice(i * BATCH, (i + 1) * BATCH));

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** Syncs `orders`: contacts upserted by email, deals by order id, then each deal associated with its contact. */
export async function syncOrders(client: Client, orders: ShopOrder[]): Promise<SyncResult> {
  const result: SyncResult = { deals: {}, contacts: {}, skipped: [] };
  const valid: ShopOrder[] = [];
  for (const o of orders) {
    if (EMAIL.test(o.customer.email ?? "")) valid.push({ ...o, customer: { ...o.customer, email: o.customer.email.toLowerCase() } });
    else result.skipped.push({ id: o.id, reason: "no customer email" });
  }

  // One contact per email, the latest order's names winning.
  const customers = new Map(valid.map((o) => [o.customer.email, o.customer]));
  for (const batch of chunks([...customers.values()])) {
    const res = await client.crm.contacts.batchApi.upsert({
      inputs: batch.map((c) => ({
        idProperty: "email",
        id: c.email,
        properties: { email: c.email, ...(c.firstName ? { firstname: c.firstName } : {}), ...(c.lastName ? { lastname: c.lastName } : {}) },
      })),
    });
    for (const r of res.results) result.contacts[String(r.properties.email).toLowerCase()] = r.id;
  }

  for (const batch of chunks(valid)) {
    const res = await client.crm.deals.batchApi.upsert({
      inputs: batch.map((o) => ({
        idProperty: ORDER_ID_PROPERTY,
        id: o.id,
        properties: {
          [ORDER_ID_PROPERTY]: o.id,
          dealname: `Order #${o.number}`,
          amount: o.total.toFixed(2),
          pipeline: "default",
          dealstage: STAGE[o.status],
          closedate: o.placedAt,
        },
      })),
    });
    for (const r of res.results) result.deals[String(r.properties[ORDER_ID_PROPERTY])] = r.id;
  }

  // Associating again is harmless: a pair is associated once.
  for (const batch of chunks(valid)) {
    await client.crm.associations.v4.batchApi.createDefault("deals", "contacts", {
      inputs: batch.map((o) => ({ _from: { id: result.deals[o.id]! }, to: { id: result.contacts[o.customer.email]! } })),
    });
  }
  return result;
}

/** The synced deals closed won (paid orders), by search: the index may lag behind the sync. */
export async function paidOrderDeals(client: Client): Promise<{ id: string; orderId: string; amount: string }[]> {
  const res = await client.crm.deals.searchApi.doSearch({
    filterGroups: [{ filters: [
      { propertyName: ORDER_ID_PROPERTY, operator: "HAS_PROPERTY" },
      { propertyName: "dealstage", operator: "EQ", value: STAGE.paid },
    ] }],
    properties: [ORDER_ID_PROPERTY, "amount"],
    limit: 100,
  } as Parameters<typeof client.crm.deals.searchApi.doSearch>[0]);
  return res.results.map((r) => ({ id: r.id, orderId: String(r.properties[ORDER_ID_PROPERTY]), amount: String(r.properties.amount) }));
}
