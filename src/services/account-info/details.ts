/**
 * @module `/account-info/v3` (docs/reference/account-info.md): the account's settings as the operator set
 * them, its UTC offset now, and its private apps' requests today from the usage data points the service
 * already writes (src/services/accounts/metering.ts), read through the Analytics Engine SQL API.
 */
import { z } from "zod";
import type { Db } from "../../db/client";
import { utcOffset } from "../../lib/zones";
import { DEFAULT_RATE_LIMIT, RATE_INTERVAL_MS } from "../../durable-objects/rate-limiter";
import { USAGE_DATASET } from "../accounts/metering";
import { requireAccount } from "../accounts/tenancy";
import { endpoint, num, type UsageSqlConfig } from "../shards/load";

/** Where an account's data is hosted, as the real service names its regions; tokens say the same (`pat-na1-`). */
const DATA_HOSTING = "na1";

export async function accountDetails(control: Db, portalId: number, now: number, uiDomain: string) {
  const a = await requireAccount(control, portalId);
  return {
    portalId: a.portalId,
    accountType: a.accountType,
    timeZone: a.timeZone,
    companyCurrency: a.companyCurrency,
    additionalCurrencies: a.additionalCurrencies,
    ...utcOffset(a.timeZone, now),
    uiDomain,
    dataHostingLocation: DATA_HOSTING,
  };
}

/** The start of the account's day at `now`, and the next one: the daily count resets at local midnight. */
export function localDay(tz: string, now: number): { start: number; end: number } {
  const DAY = 86_400_000;
  const offsetAt = (t: number) => utcOffset(tz, t).utcOffsetMilliseconds;
  const local = now + offsetAt(now);
  const midnight = local - (((local % DAY) + DAY) % DAY);
  // A local time to UTC: the offset is the one in force at that instant, which a daylight-saving change
  // between it and now makes different from now's; one correction finds it.
  const toUtc = (localTime: number) => localTime - offsetAt(localTime - offsetAt(now));
  return { start: toUtc(midnight), end: toUtc(midnight + DAY) };
}

/** Requests of the account's private-app tokens since `start`, weighted by Analytics Engine's sampling. */
export const privateAppQuery = (portalId: number, start: number) =>
  `SELECT SUM(_sample_interval) AS requests
FROM ${USAGE_DATASET}
WHERE index1 = '${portalId}' AND blob1 = 'request' AND blob4 = 'private_app' AND timestamp >= toDateTime(${Math.floor(start / 1000)})
FORMAT JSON`;

const sqlAnswer = z.object({ data: z.array(z.object({ requests: num.nullable() })) });

/** The analytics API is waited for this long at most, as the shard listing waits. */
const TIMEOUT_MS = 5_000;

async function countSince(env: Env, portalId: number, start: number): Promise<number | null> {
  const cfg = env as Env & UsageSqlConfig;
  const url = endpoint(cfg);
  if (!url || !cfg.USAGE_SQL_TOKEN) return null;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${cfg.USAGE_SQL_TOKEN}`, "content-type": "text/plain" },
      body: privateAppQuery(portalId, start),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) return null;
    const parsed = sqlAnswer.safeParse(JSON.parse(await res.text()));
    return parsed.success ? Math.round(parsed.data.data[0]?.requests ?? 0) : null;
  } catch {
    return null;
  }
}

/**
 * The private apps' requests today. crm-edge has no daily quota: the only limit is the rate limit per 10
 * seconds, so `usageLimit` is the most that limit lets one token through in a day. Without analytics
 * access (USAGE_SQL_TOKEN), or when the API fails, `fetchStatus` is FAILED and `currentUsage` 0.
 */
export async function dailyPrivateAppUsage(env: Env, control: Db, portalId: number, now: number) {
  const a = await requireAccount(control, portalId);
  const { start, end } = localDay(a.timeZone, now);
  const count = await countSince(env, portalId, start);
  return {
    results: [
      {
        name: "private-apps-api-calls-daily",
        usageLimit: (a.rateLimit ?? DEFAULT_RATE_LIMIT) * (86_400_000 / RATE_INTERVAL_MS),
        currentUsage: count ?? 0,
        collectedAt: new Date(now).toISOString(),
        fetchStatus: count === null ? ("FAILED" as const) : ("SUCCESS" as const),
        resetsAt: new Date(end).toISOString(),
      },
    ],
  };
}
