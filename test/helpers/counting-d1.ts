/**
 * @module A D1 binding that counts round trips, statements and rows read/written, for tests that pin what a
 * route or the consumer costs. It is the bench's counting client (bench/worker/counting-d1.ts): it speaks
 * D1's wire protocol to the same local database the binding uses, so every statement runs for real and its
 * `meta` is what D1 reports, for every method drizzle uses (a binding wrapper misses `raw()` and `first()`).
 */
import { CountingD1, type D1Counts } from "../../bench/worker/counting-d1";

export type { D1Counts };

/** A counting client over `binding`'s own database. */
export function countingD1(binding: D1Database): CountingD1 & D1Database {
  const session = binding.withSession("first-primary") as unknown as { _wrappedFetch?: (input: RequestInfo, init?: RequestInit) => Promise<Response> };
  const send = session._wrappedFetch;
  if (typeof send !== "function") throw new Error("this workerd's D1 session has no _wrappedFetch: the counting client cannot reach D1's wire protocol");
  const wire = { fetch: (input: RequestInfo, init?: RequestInit) => send.call(session, input, init) } as unknown as Fetcher;
  return new CountingD1(wire) as unknown as CountingD1 & D1Database;
}
