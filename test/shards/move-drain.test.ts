/**
 * A move's drain outlasts every isolate's directory entry (src/db/directory.ts, directoryTtlMs). The mover
 * purges the source once the credential cache's TTL has passed since the switch, so an entry naming the
 * source must not be trusted beyond it, whatever CREDENTIAL_CACHE_SECONDS says. The public blog pages find
 * their account's shard through the directory alone. The move runs through the mover's own steps
 * (moveStep, as the AccountMover object runs them); the clock is moved to the drain's end, not waited for.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { forgetDirectory } from "../../src/db/directory";
import { moveStep, type Progress } from "../../src/durable-objects/account-mover/run";
import { BASE, tenant } from "../helpers/api";
import { createPost, publish } from "../blog/helpers";

/** A deployment whose credential cache lasts 2 s: shorter than the directory's own bound of 10 s. */
const world = { ...env, CREDENTIAL_CACHE_SECONDS: "2" } as Env;

async function publicIndex(portalId: number) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}/_blog/${portalId}`) as Parameters<typeof worker.fetch>[0], world, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, text: await res.text() };
}

describe("a move's drain and the directory", () => {
  afterEach(() => vi.useRealTimers());

  it("a directory entry made before the switch is not trusted after the drain: the page reads the new shard", async () => {
    const t = await tenant({ shard: "SHARD_1" });
    await publish(t, (await createPost(t, { name: "Still here after the move" })).id);
    forgetDirectory();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date());
    expect((await publicIndex(t.portalId)).text).toContain("Still here after the move"); // the entry names SHARD_1
    let p: Progress | undefined = { portalId: t.portalId, source: "SHARD_1", target: "SHARD_2", phase: "fencing", table: 0, after: 0, copied: {} };
    while (p && p.phase !== "draining") p = await moveStep(world, p, async () => undefined);
    expect(p?.drainUntil).toBeDefined();
    // The drain is over: the mover purges the source.
    vi.setSystemTime(p!.drainUntil!);
    while (p) p = await moveStep(world, p, async () => undefined);
    expect(await env.SHARD_1.prepare("select count(*) as n from blog_posts where portal_id = ?").bind(t.portalId).first("n")).toBe(0);
    const after = await publicIndex(t.portalId);
    expect(after.status).toBe(200);
    expect(after.text).toContain("Still here after the move");
  });
});
