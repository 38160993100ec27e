/**
 * @module Fault rules of a test account (docs/reference/testkit.md, "Faults"): the operator lists rules; a
 * call of the account that matches the first rule it matches gets that rule's fault (the real service's 429
 * of a policy, a 500, 502, 503 or 504) or delay, before anything else of the call runs, so a faulted call
 * writes nothing and is not counted against the rate limit. With a seed, the n-th matching call of a rule
 * fails or not by the seed and n alone, so a test run sees the same calls fail every time.
 *
 * Only a test account's calls look their rules up (one indexed read of the control plane); the credential
 * lookup already says whether the account is one.
 */
import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { faultRules } from "../../db/tables/testkit";
import { ApiError } from "../../lib/errors";
import type { FaultRuleInput, PolicyName } from "../../schemas/testkit";
import { requireTestAccount } from "./account";

type Row = typeof faultRules.$inferSelect;

/** Replaces the account's rules with `rules`, in their order, as one write. */
export async function putFaultRules(control: Db, portalId: number, rules: FaultRuleInput[]) {
  await requireTestAccount(control, portalId);
  const rows = rules.map((r, position) => ({
    portalId,
    position,
    method: r.match.method ?? null,
    path: r.match.path ?? null,
    credential: r.match.credential ?? null,
    status: r.respond?.status ?? null,
    policyName: r.respond?.policyName ?? null,
    probability: r.probability ?? null,
    seed: r.seed ?? null,
    timesLeft: r.times ?? null,
    latencyMs: r.latencyMs ?? 0,
  }));
  await control.batch([control.delete(faultRules).where(eq(faultRules.portalId, portalId)), ...rows.map((r) => control.insert(faultRules).values(r))]);
  return listFaultRules(control, portalId);
}

export async function listFaultRules(control: Db, portalId: number) {
  await requireTestAccount(control, portalId);
  const rows = await control.select().from(faultRules).where(eq(faultRules.portalId, portalId)).orderBy(asc(faultRules.position)).all();
  return { rules: rows.map(present) };
}

export async function clearFaultRules(control: Db, portalId: number) {
  await requireTestAccount(control, portalId);
  await control.delete(faultRules).where(eq(faultRules.portalId, portalId));
}

function present(r: Row) {
  const match = Object.fromEntries(Object.entries({ method: r.method, path: r.path, credential: r.credential }).filter(([, v]) => v !== null));
  return {
    id: r.id,
    match,
    ...(r.status !== null ? { respond: { status: r.status, ...(r.policyName ? { policyName: r.policyName } : {}) } } : {}),
    ...(r.probability !== null ? { probability: r.probability } : {}),
    ...(r.seed !== null ? { seed: r.seed } : {}),
    latencyMs: r.latencyMs,
    ...(r.timesLeft !== null ? { timesLeft: r.timesLeft } : {}),
    calls: r.calls,
    faults: r.faults,
  };
}

/** A glob over the path: `*` within one segment, `**` across segments, `?` one character of a segment. */
export function globMatches(glob: string, path: string): boolean {
  const re = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*\*|\*|\?/g, (g) => (g === "**" ? ".*" : g === "*" ? "[^/]*" : "[^/]"));
  return new RegExp(`^${re}$`).test(path);
}

/** A number in [0, 1) from the seed and the call's number (a 32-bit integer hash), the same on every run. */
export function seededUnit(seed: number, n: number): number {
  let x = (seed ^ Math.imul(n, 0x9e3779b1)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
}

export interface Call {
  portalId: number;
  method: string;
  path: string;
  credential: "private-app" | "oauth";
}

export interface Fault {
  ruleId: number;
  status: number | null;
  policyName: PolicyName | null;
  latencyMs: number;
}

/**
 * The fault (or delay) this call gets, if any: the first rule it matches counts the call, and gives its fault
 * when the call is one of the `probability` that fail and the rule has faults left. Counting is one
 * statement, so concurrent calls each get their own number and `times` is never overspent.
 */
export async function faultFor(control: Db, call: Call): Promise<Fault | null> {
  const rules = await control.select().from(faultRules).where(eq(faultRules.portalId, call.portalId)).orderBy(asc(faultRules.position)).all();
  const rule = rules.find(
    (r) => (r.method === null || r.method === call.method) && (r.credential === null || r.credential === call.credential) && (r.path === null || globMatches(r.path, call.path)),
  );
  if (!rule) return null;
  const [counted] = await control
    .update(faultRules)
    .set({ calls: sql`${faultRules.calls} + 1` })
    .where(eq(faultRules.id, rule.id))
    .returning({ calls: faultRules.calls })
    .all();
  if (!counted) return null; // the rules were replaced meanwhile
  const p = rule.probability ?? 1;
  const fails = rule.seed !== null ? seededUnit(rule.seed, counted.calls) < p : Math.random() < p;
  if (!fails) return null;
  const [given] = await control
    .update(faultRules)
    .set({ faults: sql`${faultRules.faults} + 1`, timesLeft: sql`${faultRules.timesLeft} - 1` })
    .where(sql`${faultRules.id} = ${rule.id} and (${faultRules.timesLeft} is null or ${faultRules.timesLeft} > 0)`)
    .returning({ id: faultRules.id })
    .all();
  if (!given) return null;
  return { ruleId: rule.id, status: rule.status, policyName: rule.policyName as PolicyName | null, latencyMs: rule.latencyMs };
}

/** The search API's own limit is per second, and its answers carry no rate-limit headers (the real service's). */
const isSearch = (path: string) => /\/search$/.test(path);

const POLICY_MESSAGE: Record<PolicyName, string> = {
  TEN_SECONDLY_ROLLING: "You have reached your ten_secondly_rolling limit.",
  SECONDLY: "You have reached your secondly limit.",
  DAILY: "You have reached your daily limit.",
};

/** Seconds until the next midnight, UTC: when a daily limit starts over. */
const untilMidnight = (now: number) => Math.ceil((86_400_000 - (now % 86_400_000)) / 1000);

/** The answer of a fault, as the real service gives it: its body and headers (docs/reference/testkit.md). */
export function faultError(f: Fault, call: Call, rateLimit: number, now: number): ApiError {
  const marker = { "x-service-fault-rule": String(f.ruleId) };
  switch (f.status) {
    case 429: {
      const policy = f.policyName ?? (isSearch(call.path) ? "SECONDLY" : "TEN_SECONDLY_ROLLING");
      const retry = policy === "DAILY" ? untilMidnight(now) : policy === "SECONDLY" ? 1 : 10;
      const window: Record<string, string> = policy === "TEN_SECONDLY_ROLLING" ? { "x-service-ratelimit-max": String(rateLimit), "x-service-ratelimit-remaining": "0", "x-service-ratelimit-interval-milliseconds": "10000" } : {};
      return new ApiError("RATE_LIMITS", POLICY_MESSAGE[policy], {
        extra: { errorType: "RATE_LIMIT", policyName: policy },
        headers: { ...(isSearch(call.path) ? {} : window), "retry-after": String(retry), ...marker },
      });
    }
    case 503:
      return new ApiError("SERVICE_UNAVAILABLE", "The service is unavailable right now. Try again after the Retry-After delay.", { headers: { "retry-after": "1", ...marker } });
    case 502:
      return new ApiError("INTERNAL_ERROR", "Bad gateway: the request could not be completed. Try again.", { status: 502, headers: marker });
    case 504:
      return new ApiError("INTERNAL_ERROR", "Gateway timeout: the request took too long to complete. Try again.", { status: 504, headers: marker });
    default:
      return new ApiError("INTERNAL_ERROR", "An internal error occurred. Quote the correlationId when reporting it.", { headers: marker });
  }
}

/** Runs the call's fault, if it has one: waits its delay, then throws its answer (a delay alone lets the call go on). */
export async function applyFault(control: Db, call: Call, rateLimit: number, now: number): Promise<void> {
  const f = await faultFor(control, call);
  if (!f) return;
  if (f.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, f.latencyMs));
  if (f.status !== null) throw faultError(f, call, rateLimit, now);
}
