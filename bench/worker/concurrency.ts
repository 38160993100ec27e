/**
 * @module What grows with concurrency (figure 3's probe): one read route served by the app's own fetch
 * handler inside this isolate, N requests at concurrency 1 and then 10, under set-ups that each take one
 * per-request cost away, next to the floor's primary-key read at the same concurrencies:
 *   deployed        as the production Worker runs it
 *   noRateLimiter   the rate-limit count answered in the isolate (no Durable Object call)
 *   noUsage         without the Analytics Engine binding (no usage data point)
 *   noLog           console.log a no-op (no request log line)
 * Each set-up answers ms per request at both concurrencies and their quotient (c=10 ÷ c=1; the floor's
 * quotient is what D1 alone does), plus the rate limiter's Durable Object calls per 100 requests.
 * Set-ups run in turns (round robin, `rounds` times) so drift hits them alike; medians are reported.
 */
import app from "../../src/index";
import { instantLimiter, requestMaker, type RouteSpec } from "./app-requests";

interface Spec extends RouteSpec {
  n?: number;
  rounds?: number;
  /** The floor's primary-key read: a crm_objects id. */
  floorId?: number;
}

/** Forwards to the real namespace and counts `take` calls (each one a Durable Object round trip). */
function countingLimiter(real: Env["RATE_LIMITER"], counter: { calls: number }): Env["RATE_LIMITER"] {
  return {
    idFromName: (name: string) => real.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = real.get(id);
      return {
        take: (max: number, intervalMs: number, now: number, want: number) => {
          counter.calls++;
          return stub.take(max, intervalMs, now, want);
        },
      };
    },
  } as unknown as Env["RATE_LIMITER"];
}

/** ms per request of `one` run n times at `concurrency`. */
async function timed(n: number, concurrency: number, one: () => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        await one();
      }
    }),
  );
  return (performance.now() - started) / n;
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function concurrencyProbe(req: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const spec = (await req.json()) as Spec;
  const n = spec.n ?? 200;
  const rounds = spec.rounds ?? 3;
  const make = requestMaker(req, spec);
  const counter = { calls: 0 };
  const withoutUsage: Env = { ...env };
  delete (withoutUsage as Partial<Env>).USAGE;
  const setups: Record<string, { env: Env; quiet?: boolean }> = {
    deployed: { env: { ...env, RATE_LIMITER: countingLimiter(env.RATE_LIMITER, counter) } },
    noRateLimiter: { env: { ...env, RATE_LIMITER: instantLimiter } },
    noUsage: { env: withoutUsage },
    noLog: { env, quiet: true },
  };
  const request = (e: Env) => async () => {
    const res = await app.fetch(make(), e, ctx);
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`${spec.path} -> ${res.status}`);
  };
  const floor = async () => {
    await env.DB.prepare("SELECT * FROM crm_objects WHERE id = ?").bind(spec.floorId ?? 0).first();
  };
  const samples: Record<string, { c1: number[]; c10: number[]; doC1: number[]; doC10: number[] }> = {};
  const log = console.log;
  for (let round = 0; round < rounds; round++) {
    for (const [name, s] of [...Object.entries(setups), ["floor", null] as const]) {
      const out = (samples[name] ??= { c1: [], c10: [], doC1: [], doC10: [] });
      for (const c of [1, 10] as const) {
        counter.calls = 0;
        if (s?.quiet) console.log = () => {};
        try {
          out[`c${c}`].push(await timed(n, c, s ? request(s.env) : floor));
        } finally {
          console.log = log;
        }
        if (name === "deployed") out[`doC${c}`].push((counter.calls * 100) / n);
      }
    }
  }
  const result = Object.fromEntries(
    Object.entries(samples).map(([name, s]) => {
      const c1 = median(s.c1);
      const c10 = median(s.c10);
      const calls = s.doC1.length ? { doCallsPer100C1: median(s.doC1), doCallsPer100C10: median(s.doC10) } : {};
      return [name, { msC1: c1, msC10: c10, growth: c10 / c1, ...calls }];
    }),
  );
  return Response.json({ n, rounds, ...result });
}
