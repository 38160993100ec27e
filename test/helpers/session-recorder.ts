/**
 * @module The real `DB` binding behind a recorder that notes, for every statement prepared, whether it ran on
 * the binding itself (the primary), in a `first-primary` or `first-unconstrained` session, or in a session
 * started from a bookmark (src/db/replica.ts). Every statement runs on the real local database.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import { BASE } from "./api";

export type Via = "primary" | "first-primary" | "first-unconstrained" | "bookmark";
export interface Seen {
  via: Via;
  sql: string;
}

export function recorder(d1: D1Database) {
  const seen: Seen[] = [];
  const binding = {
    prepare: (sql: string) => (seen.push({ via: "primary", sql }), d1.prepare(sql)),
    batch: (s: D1PreparedStatement[]) => d1.batch(s),
    exec: (sql: string) => d1.exec(sql),
    withSession: (constraint?: string) => {
      const session = d1.withSession(constraint);
      const via: Via = constraint === "first-primary" || constraint === "first-unconstrained" ? constraint : "bookmark";
      return { prepare: (sql: string) => (seen.push({ via, sql }), session.prepare(sql)), batch: (s: D1PreparedStatement[]) => session.batch(s), getBookmark: () => session.getBookmark() };
    },
    dump: () => d1.dump(),
  } satisfies D1Database;
  return { binding, seen };
}

/**
 * A Worker whose `DB` is recorded, with D1's read replication declared `replication` ("auto": sessions);
 * `ask` calls its fetch handler as test/helpers/api.ts `call` does.
 */
export function recordedWorker(replication = "auto") {
  const rec = recorder(env.DB);
  const world = { ...env, DB: rec.binding, D1_READ_REPLICATION: replication } as Env;
  async function ask(method: string, path: string, token: string, body?: unknown) {
    const ctx = createExecutionContext();
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const request = new Request(`${BASE}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const res = await worker.fetch(request as Parameters<typeof worker.fetch>[0], world, ctx);
    await waitOnExecutionContext(ctx);
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
  }
  return { seen: rec.seen, ask };
}

/** The vias of the statements that read credentials. */
export const credentialReads = (seen: Seen[]) => seen.filter((s) => s.sql.includes('from "credentials"')).map((s) => s.via);
