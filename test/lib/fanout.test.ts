/** inPool: bounded concurrency (a Worker invocation has 6 connections), results in input order. */
import { describe, expect, it } from "vitest";
import { inPool } from "../../src/db/fanout";

describe("inPool", () => {
  it("never runs more than `size` at once, runs every item once, and answers in the items' order", async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    const items = Array.from({ length: 20 }, (_, i) => i);
    const out = await inPool(items, 6, async (i) => {
      running++;
      most = Math.max(most, running);
      // Later items finish sooner, so completion order differs from input order.
      await new Promise((r) => setTimeout(r, (20 - i) % 7));
      seen.push(i);
      running--;
      return i * 10;
    });
    expect(most).toBe(6);
    expect(seen.sort((a, b) => a - b)).toEqual(items);
    expect(out).toEqual(items.map((i) => i * 10));
  });

  it("an empty list runs nothing; fewer items than the size run at once", async () => {
    expect(await inPool([], 6, async () => 1)).toEqual([]);
    let running = 0;
    let most = 0;
    await inPool([1, 2, 3], 6, async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    });
    expect(most).toBe(3);
  });
});
