/**
 * @module The drizzle handle over a D1 binding. `drizzle(d1, { schema })` walks the whole schema to build
 * its relational config and a query builder per table (0.1–0.3 ms measured); the handles here leave the
 * relational API out, so making one costs next to nothing, per request too. The handle holds no request state.
 *
 * A handle made with a `StatementMeter` counts the statements it issues (the request's structured log line
 * says how many D1 statements it cost). The meter belongs to one request (or queue batch, or cron run), not
 * to a binding: concurrent requests in one isolate share bindings, so a per-binding count would mix them.
 */
import { DrizzleD1Database, SQLiteD1Session } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";

/** Statements issued through one handle: every statement drizzle or a raw batch prepares is run once. */
export interface StatementMeter {
  statements: number;
}

const dialect = new SQLiteAsyncDialect();
const handles = new WeakMap<D1Database, ReturnType<typeof build>>();

/**
 * What `drizzle(d1)` builds, without the relational query API (`db.query`, which the code never uses):
 * `drizzle(d1, { schema })` walks the schema and makes a query builder per table on every handle, which a
 * per-request (metered) handle would pay on each request (about 30 µs, twice: the control plane and the shard).
 */
function build(d1: D1Database) {
  const session = new SQLiteD1Session(d1, dialect, undefined, {});
  return Object.assign(new DrizzleD1Database("async", dialect, session, undefined), { $client: d1 });
}

/** The binding with every prepared statement (and `exec`) counted on `meter`; statements are D1's own. */
export function metered(d1: D1Database, meter: StatementMeter): D1Database {
  const prepare = (sql: string) => {
    meter.statements++;
    return d1.prepare(sql);
  };
  const wrapped = {
    prepare,
    batch: (statements) => d1.batch(statements),
    exec: async (sql) => {
      const result = await d1.exec(sql);
      meter.statements += result.count;
      return result;
    },
    withSession: (constraint) => {
      const session = d1.withSession(constraint);
      // Statements prepared in the session run in it (a replica may serve them); each is counted here.
      const prepareIn = (sql: string) => {
        meter.statements++;
        return session.prepare(sql);
      };
      return { prepare: prepareIn, batch: (statements) => session.batch(statements), getBookmark: () => session.getBookmark() };
    },
    dump: () => d1.dump(),
  } satisfies D1Database;
  // The binding underneath, for what is kept per binding rather than per request (src/db/replica.ts).
  return Object.assign(wrapped, { binding: d1 });
}

/**
 * A D1 session (D1's Sessions API) shaped as a binding, so that a drizzle handle runs every statement in it.
 * Without a session every query goes to the database's primary; in one, D1 may serve reads from a read
 * replica no older than the session's constraint: `first-unconstrained` (any replica), `first-primary` (the
 * first query on the primary), or a bookmark (a replica that has caught up to it). `exec` has no session
 * form and is refused: nothing reads through it.
 */
function sessionBinding(d1: D1Database, session: D1DatabaseSession): D1Database {
  return {
    prepare: (sql) => session.prepare(sql),
    batch: (statements) => session.batch(statements),
    exec: () => Promise.reject(new Error("exec does not run in a D1 session")),
    withSession: (constraint) => d1.withSession(constraint),
    dump: () => d1.dump(),
  } satisfies D1Database;
}

/** A handle whose statements run in one session of `d1` under `constraint`, and the session's latest bookmark. */
export function sessionDb(d1: D1Database, constraint: D1SessionConstraint | D1SessionBookmark) {
  const session = d1.withSession(constraint);
  return { db: build(sessionBinding(d1, session)), bookmark: () => session.getBookmark() };
}

export function makeDb(d1: D1Database, meter?: StatementMeter) {
  if (meter) return build(metered(d1, meter));
  let db = handles.get(d1);
  if (!db) {
    db = build(d1);
    handles.set(d1, db);
  }
  return db;
}
export type Db = ReturnType<typeof makeDb>;
