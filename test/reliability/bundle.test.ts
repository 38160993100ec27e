/**
 * The fault injector is test-only (issue 9): the production bundle, built by `wrangler deploy --dry-run`
 * exactly as a deploy builds it, carries the consumers' no-op seam and none of the injector.
 */
import { describe, expect, inject, it } from "vitest";
import type { BuiltBundle } from "../build-probe/types";
import { INJECTED_FAULT_MARKER } from "./fault-injector";

describe("production bundle", () => {
  it("contains the no-op fault seam at every point, and no fault injector", async () => {
    const res = await fetch(`${inject("buildProbeUrl")}/bundle`);
    expect(res.status, await res.clone().text()).toBe(200);
    const bundle = (await res.json()) as BuiltBundle;
    const text = bundle.files.map((f) => f.text).join("\n");
    expect(text.length).toBeGreaterThan(100_000); // a real Worker bundle, not an empty build
    // The seam's call sites are there (their point names are string literals at the call sites)...
    for (const point of ["sync:before-decide", "sync:after-decide", "sync:commit", "sync:after-commit", "dlq:record"]) {
      expect(text, point).toContain(point);
    }
    expect(text).toMatch(/function faultPoint\(_point, _ids\) \{\s*\}/); // the production no-op
    // ...and nothing of the injector: neither its marker nor its arming functions.
    expect(text).not.toContain(INJECTED_FAULT_MARKER);
    expect(text).not.toMatch(/armFaults|disarmFaults|InjectedFault|fault-injector/);
  });
});
