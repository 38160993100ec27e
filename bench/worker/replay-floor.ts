/**
 * @module A route's own D1 floor, for routes whose D1 work is several statements (figure 10: the record page,
 * the v4 associations page): the statements the route runs, with their bound values, replayed against the
 * real D1 with the same round-trip shape (what the route ran concurrently runs concurrently here, the rest
 * in turn), rows answered as raw JSON and nothing else. The statements are recorded from the route itself,
 * run through the app's own fetch handler with a recording D1: so the floor follows the route when its
 * queries change, and holds nothing the route does not read.
 *
 * Recorded on the second run of the route (the first warms the isolate's caches, as the measured route's
 * are warm), once per path and caller, and kept for the isolate's life.
 */
import app from "../../src/index";

interface Recorded {
  sql: string;
  params: unknown[];
  start: number;
  end: number;
  /** A batch's statements (one round trip). */
  batch?: { sql: string; params: unknown[] }[];
}

/** A DB binding that runs everything on `d1` and records each round trip's statements and time span. */
function recording(d1: D1Database, log: Recorded[]): D1Database {
  const timed = async <T>(entry: Omit<Recorded, "start" | "end">, run: () => Promise<T>) => {
    const start = performance.now();
    const rec: Recorded = { ...entry, start, end: Infinity };
    log.push(rec);
    try {
      return await run();
    } finally {
      rec.end = performance.now();
    }
  };
  const statement = (sql: string, params: unknown[]): D1PreparedStatement => {
    const real = d1.prepare(sql).bind(...params);
    return {
      sql,
      params,
      bind: (...v: unknown[]) => statement(sql, v),
      all: () => timed({ sql, params }, () => real.all()),
      raw: (o?: { columnNames?: boolean }) => timed({ sql, params }, () => real.raw(o as { columnNames: true })),
      first: (c?: string) => timed({ sql, params }, () => (c === undefined ? real.first() : real.first(c))),
      run: () => timed({ sql, params }, () => real.run()),
      // drizzle's batch hands these back to `batch`, which reads `sql` and `params`.
      real,
    } as unknown as D1PreparedStatement;
  };
  // A session (the control plane's replica reads) runs on the one local database: its statements are
  // recorded and timed like the others.
  const session = () => ({ prepare: (sql: string) => statement(sql, []), batch: (stmts: never[]) => proxy.batch(stmts), getBookmark: () => "replay-floor" });
  const proxy: D1Database = new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => statement(sql, []);
      if (prop === "withSession") return session;
      if (prop === "batch")
        return (stmts: (D1PreparedStatement & { sql: string; params: unknown[]; real: D1PreparedStatement })[]) =>
          timed({ sql: "", params: [], batch: stmts.map((s) => ({ sql: s.sql, params: s.params })) }, () => target.batch(stmts.map((s) => s.real)));
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return proxy;
}

/** Round trips grouped by overlap: a round trip that started before the current group's last one ended joins it. */
function rounds(log: Recorded[]): Recorded[][] {
  const out: Recorded[][] = [];
  let end = -Infinity;
  for (const r of [...log].sort((a, b) => a.start - b.start)) {
    if (r.start < end && out.length) out.at(-1)!.push(r);
    else out.push([r]);
    end = Math.max(end, r.end);
  }
  return out;
}

const recorded = new Map<string, Recorded[][]>();

/**
 * GET (or POST with the route's body) /__bench/floor/replay?path=<route path>, with the caller's Authorization
 * or Cookie: the route's D1 reads, replayed. A POST is recorded from the route called with the same method and body.
 */
export async function replayFloor(req: Request, env: Env, ctx: ExecutionContext, url: URL): Promise<Response> {
  const path = url.searchParams.get("path") ?? "/";
  const headers = new Headers();
  for (const h of ["authorization", "cookie", "content-type"]) if (req.headers.has(h)) headers.set(h, req.headers.get(h)!);
  const body = req.method === "POST" ? await req.text() : undefined;
  const key = `${req.method} ${path}\u0000${headers.get("authorization") ?? ""}\u0000${headers.get("cookie") ?? ""}\u0000${body ?? ""}`;
  let plan = recorded.get(key);
  if (!plan) {
    let log: Recorded[] = [];
    for (let i = 0; i < 2; i++) {
      log = [];
      const res = await app.fetch(new Request(new URL(path, url), { method: req.method, headers, body }) as Parameters<typeof app.fetch>[0], { ...env, DB: recording(env.DB, log) }, ctx);
      await res.arrayBuffer();
      if (res.status !== 200) return new Response(`${path} answered ${res.status}`, { status: 500 });
    }
    plan = rounds(log);
    recorded.set(key, plan);
  }
  const answers: unknown[] = [];
  for (const round of plan) {
    answers.push(
      ...(await Promise.all(
        round.map((r) => (r.batch ? env.DB.batch(r.batch.map((s) => env.DB.prepare(s.sql).bind(...s.params))) : env.DB.prepare(r.sql).bind(...r.params).raw())),
      )),
    );
  }
  return Response.json(answers, { headers: { "x-floor-round-trips": String(plan.length), "x-floor-statements": String(plan.flat().reduce((n, r) => n + (r.batch?.length ?? 1), 0)) } });
}
