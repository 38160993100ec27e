import { describe, expect, it } from "vitest";
import { isoTime } from "../../src/lib/iso";

describe("isoTime", () => {
  it("is Date#toISOString for every kind of time: epoch, day edges, leap days, far years, fractions", () => {
    const times = [
      0, 1, 999, 1000, 59_999, 86_399_999, 86_400_000, Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(2000, 0, 1), Date.now(),
      253_402_300_799_999, 253_402_300_800_000, -1, -86_400_001, 1.5, 8.64e15,
    ];
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 7_919_333) times.push(t);
    for (const t of times) expect([t, isoTime(t)]).toEqual([t, new Date(t).toISOString()]);
  });

  it("throws as toISOString does for an invalid time", () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
