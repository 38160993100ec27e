/**
 * @module Control-plane reads that a D1 read replica may serve (docs/explanation/scaling.md "Read replicas").
 *
 * Without a session every query goes to the primary. Where the deployment turns D1's read replication on
 * (`D1_READ_REPLICATION = "auto"`, `replicatedBinding` below), the hot path's reads (credentials, the
 * directory, apps, installs) run in a session instead, and D1 answers them from a replica. Locally there is
 * no replica: with "auto" the primary answers, through the same calls.
 *
 * Two kinds:
 * - `replicaDb`: `first-unconstrained`, any replica however far behind. For reads whose staleness only delays
 *   a configuration change (an app's settings, an install's card types), never a revocation.
 * - `controlRead`: the credential and directory reads, which a revocation, a suspension and a move must reach
 *   within CREDENTIAL_CACHE_SECONDS. D1 publishes no bound on a replica's lag, so a replica read is not
 *   trusted by its own time: it starts from a *floor*, a bookmark of the primary taken at a known time, and
 *   D1 serves it only from a replica that has caught up to that bookmark. What it reads is at least as new
 *   as the floor, and the caches count an entry's age from the floor's time, not the read's. An isolate
 *   whose floor is older than half the TTL (or who forgot its credentials since) reads on the primary
 *   (`first-primary`) instead, and that read's bookmark is the new floor. So a change on the primary at time
 *   t is seen by every entry made from t on, and an older entry expires by t + TTL, whatever the lag; the
 *   price is at most one primary read per isolate per half TTL, and only when the cache misses.
 */
import { credentialGeneration } from "../lib/credential-cache";
import { sessionDb, type Db } from "./client";

interface Floor {
  bookmark: string;
  /** When the bookmark was taken (no later than the primary's state it names). */
  takenAt: number;
  /** The credential forget count when it was taken (src/lib/credential-cache.ts). */
  generation: number;
}

/** One floor per control-plane binding (the metered wrapper of a request keeps its binding's floor). */
const floors = new WeakMap<object, Floor>();

export interface ControlRead {
  db: Db;
  /** The time from which what this read returns is known current: the floor's, or the read's on the primary. */
  since: number;
  /** After the read: a primary read's bookmark becomes the isolate's floor. */
  done(): void;
}

/** The binding a handle runs on, and the key of its floor: the request's meter wraps the same binding. */
const bindingOf = (db: Db): D1Database => db.$client;
const floorKey = (d1: D1Database): object => (d1 as D1Database & { binding?: D1Database }).binding ?? d1;

/** A read of credentials or the directory: from a replica no older than the floor, or from the primary. */
export function controlRead(control: Db, now: number, ttlMs: number): ControlRead {
  const d1 = bindingOf(control);
  const key = floorKey(d1);
  const floor = floors.get(key);
  const generation = credentialGeneration();
  // A floor from the future (the clock stepped back since it was taken) is not trusted: counting entries'
  // age from it would keep them past the TTL, and a move or a revocation would be missed for that long.
  const age = floor ? now - floor.takenAt : Infinity;
  if (floor && floor.generation === generation && age >= 0 && age < ttlMs / 2) {
    return { db: sessionDb(d1, floor.bookmark).db, since: floor.takenAt, done: () => undefined };
  }
  const primary = sessionDb(d1, "first-primary");
  return {
    db: primary.db,
    since: now,
    done: () => {
      const bookmark = primary.bookmark();
      if (bookmark && ttlMs > 0) floors.set(key, { bookmark, takenAt: now, generation });
    },
  };
}

/**
 * The control plane's binding as the deployment declares D1's read replication on it (`D1_READ_REPLICATION`,
 * in D1's own words): `"auto"` keeps D1's sessions for the reads above; anything else (`"disabled"`, D1's own
 * default and the configuration's) runs them on the binding itself. Without replicas the primary answers
 * every session anyway, so a session would buy nothing and still ask for a bookmark with every answer.
 * No bookmark means no floor: each read counts from its own time, as a primary read does.
 */
export function replicatedBinding(env: Pick<Env, "DB" | "D1_READ_REPLICATION">): D1Database {
  if (env.D1_READ_REPLICATION === "auto") return env.DB;
  let plain = primaryOnly.get(env.DB);
  if (!plain) {
    const d1 = env.DB;
    const primary = { prepare: (sql: string) => d1.prepare(sql), batch: d1.batch.bind(d1), getBookmark: () => null } as D1DatabaseSession;
    plain = { prepare: (sql) => d1.prepare(sql), batch: (statements) => d1.batch(statements), exec: (sql) => d1.exec(sql), withSession: () => primary, dump: () => d1.dump() } satisfies D1Database;
    primaryOnly.set(d1, plain);
  }
  return plain;
}

/** One wrapper per binding, so that the drizzle handle kept per binding (src/db/client.ts) is kept for it too. */
const primaryOnly = new WeakMap<D1Database, D1Database>();

/** A handle whose reads any replica may serve (`first-unconstrained`): never for a credential or a move. */
export function replicaDb(control: Db): Db {
  return sessionDb(bindingOf(control), "first-unconstrained").db;
}
