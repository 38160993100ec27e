/**
 * @module Throttling of password sign-in (`POST /login`): OWASP API2, broken authentication, asks for
 * rate-limited authentication.
 * Each attempt costs a PBKDF2 hash of 100,000 iterations, and without a count anyone could guess a user's
 * password at that rate. Attempts are counted per email address and per client address in the RateLimiter
 * Durable Object, under keys of their own (`login-email:<SHA-256 of the lower-cased address>`,
 * `login-ip:<address>`), in a sliding 15-minute window.
 *
 * An attempt is counted *before* its password is hashed: a refused attempt costs no hash, and concurrent
 * guesses cannot all pass a check made before any of them is counted. A successful sign-in gives its own
 * attempt back, so what stays counted are the failures. It does not erase earlier failures (they expire
 * with the window): a reset would refill a guesser's budget whenever the victim signs in, and, for a
 * shared client address, whenever the guesser signs in to an account of their own.
 */
import { sha256Hex } from "./crypto";

export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Failed sign-ins per email address in the window; the next attempt, right password or not, is a 429. */
export const LOGIN_FAILURES_PER_EMAIL = 10;
/** Failed sign-ins per client address in the window: more than per email, since many users can share one. */
export const LOGIN_FAILURES_PER_ADDRESS = 50;

interface Bucket {
  key: string;
  max: number;
}

/** What an allowed attempt was counted in, so that a success can give it back. */
interface Counted {
  key: string;
  countedUntil: number;
}

export type Attempt = { allowed: true; counted: Counted[] } | { allowed: false; retryAfterMs: number };

const limiter = (env: Env, key: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key));

/** The counts an attempt for `email` (already trimmed and lower-cased) from this request draws on. */
export async function loginBuckets(email: string, request: Request): Promise<Bucket[]> {
  const buckets: Bucket[] = [{ key: `login-email:${await sha256Hex(email)}`, max: LOGIN_FAILURES_PER_EMAIL }];
  const address = clientAddress(request.headers.get("cf-connecting-ip"));
  if (address) buckets.push({ key: `login-ip:${address}`, max: LOGIN_FAILURES_PER_ADDRESS });
  return buckets;
}

/**
 * The client address an attempt is counted against: IPv4 as is, IPv6 by its /64 (one subscriber usually
 * holds a whole /64 and would otherwise get a fresh count from every address in it). Null when the header
 * is missing or not an address (only outside Cloudflare, which always sets it).
 */
export function clientAddress(header: string | null): string | null {
  const ip = header?.trim() ?? "";
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return ip;
  if (!ip.includes(":")) return null;
  let host: string;
  try {
    host = new URL(`http://[${ip}]/`).hostname.slice(1, -1); // WHATWG normal form, e.g. "2001:db8::1"
  } catch {
    return null;
  }
  const [head = "", tail] = host.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return `${groups.slice(0, 4).join(":")}::/64`;
}

/** Counts one attempt in every bucket; refused when any is full, and then counted in none. */
export async function startAttempt(env: Env, buckets: Bucket[], now: number): Promise<Attempt> {
  const decisions = await Promise.all(buckets.map((b) => limiter(env, b.key).take(b.max, LOGIN_WINDOW_MS, now, 1)));
  const counted = decisions.flatMap((d, i) => (d.allowed ? [{ key: buckets[i]!.key, countedUntil: d.countedUntil }] : []));
  if (counted.length === buckets.length) return { allowed: true, counted };
  await giveBack(env, counted);
  return { allowed: false, retryAfterMs: Math.max(...decisions.filter((d) => !d.allowed).map((d) => d.retryAfterMs)) };
}

/** A successful sign-in is not a failure: its attempt is taken out of the counts again. */
export async function giveBack(env: Env, counted: Counted[]): Promise<void> {
  await Promise.all(counted.map((c) => limiter(env, c.key).giveBack(c.countedUntil, 1)));
}
