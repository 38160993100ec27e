/** src/lib/memo.ts: answers kept by key, forgotten all at once when the next would pass the bound. */
import { describe, expect, it } from "vitest";
import { memo } from "../../src/lib/memo";

describe("memo", () => {
  it("makes an answer once per key and keeps it", () => {
    const m = memo<string, number>(10);
    let made = 0;
    expect(m.through("a", () => ++made)).toBe(1);
    expect(m.through("a", () => ++made)).toBe(1);
    expect(m.through("b", () => ++made)).toBe(2);
    expect(made).toBe(2);
  });

  it("forgets everything when an answer would pass the bound, then keeps that answer", () => {
    const m = memo<string, string>(10, (k, v) => k.length + v.length);
    m.set("k1", "xxxx"); // 6
    m.set("k2", "yy"); // 10: at the bound, kept
    expect([m.get("k1"), m.get("k2")]).toEqual(["xxxx", "yy"]);
    m.set("k3", "z"); // 13 > 10: the others go
    expect([m.get("k1"), m.get("k2"), m.get("k3")]).toEqual([undefined, undefined, "z"]);
  });
});
