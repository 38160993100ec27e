/**
 * @module Resolved credentials kept in isolate memory for a few seconds.
 *
 * Without it, every authenticated request starts with a D1 read of its credential: in production a round
 * trip to the control plane (a read replica no older than the isolate's floor bookmark, src/db/replica.ts),
 * often the slowest step of a read. An entry's age counts from the floor, so the bounds below hold whatever
 * a replica's lag. A principal found in D1 is kept
 * here, keyed by the SHA-256 of the secret, for `CREDENTIAL_CACHE_SECONDS` (default 10; "0" turns the cache
 * off). What that means for callers, written down in docs/explanation/design-decisions.md:
 *   - an access token's expiry is still exact: the entry carries `expiresAt` and is checked on each use;
 *   - a revocation (uninstall, refresh-token reuse) takes effect at once in the isolate that made it
 *     (`forgetCredentials`), and in other isolates within the TTL;
 *   - unknown, revoked and expired secrets are never cached: they always reach D1;
 *   - only credentials of active accounts are cached: suspending or deleting an account forgets this
 *     isolate's entries (immediate here, within the TTL elsewhere), and resuming one is immediate everywhere
 *     (docs/how-to/account-lifecycle.md).
 */
import type { CredentialPrincipal as Cached } from "./principal";

interface Entry {
  principal: Cached;
  /** The credential's own expiry (access tokens); null for credentials that do not expire. */
  expiresAt: number | null;
  /** When what it holds was known current; a clock that reads earlier than this stepped back. */
  since: number;
  /** Until when the entry may be used without asking D1 again. */
  freshUntil: number;
}

const DEFAULT_TTL_MS = 10_000;
/** Bounds the memory an isolate spends here; the oldest entries go first. */
const MAX_ENTRIES = 10_000;

const entries = new Map<string, Entry>();

export function cacheTtlMs(env: Pick<Env, "CREDENTIAL_CACHE_SECONDS">): number {
  const raw = env.CREDENTIAL_CACHE_SECONDS;
  if (raw === undefined || raw === "") return DEFAULT_TTL_MS;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_TTL_MS;
}

/** The cached principal for this hash, or undefined when D1 must be asked. */
export function cachedPrincipal(hash: string, now: number): Cached | undefined {
  const entry = entries.get(hash);
  if (!entry) return undefined;
  // An entry from the clock's future (it stepped back since) is not trusted: its TTL would run long.
  if (now >= entry.freshUntil || now < entry.since || (entry.expiresAt !== null && entry.expiresAt <= now)) {
    entries.delete(hash); // D1 decides again, and words the expiry error
    return undefined;
  }
  return entry.principal;
}

/**
 * Keeps the principal until `since` + the TTL. `since` is when the data read was known current: the read's
 * own time on the primary, or the time of the bookmark a replica read started from (src/db/replica.ts),
 * so that an entry never outlives the TTL counted from the state it shows.
 */
export function rememberPrincipal(hash: string, principal: Cached, expiresAt: number | null, since: number, ttlMs: number): void {
  if (ttlMs <= 0) return;
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(hash, { principal, expiresAt, since, freshUntil: since + ttlMs });
}

/** How many times this isolate forgot its credentials: reads from before a forget may not see what caused it. */
let generation = 0;

/** The forget count (src/db/replica.ts reads from the primary again once it moves). */
export const credentialGeneration = () => generation;

/**
 * Called after this isolate revokes credentials, so its own next request sees the revocation: the entries
 * go, and the next control-plane read takes the primary rather than a replica that may not have it yet.
 */
export function forgetCredentials(): void {
  entries.clear();
  generation++;
}
