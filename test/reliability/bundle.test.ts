/**
 * The fault injector is test-only: the production bundle, built by `wrangler deploy --dry-run`
 * exactly as a deploy builds it (minified), resolves the consumers' seam to the no-op, which the minifier
 * then removes with its call sites, and carries none of the injector.
 */
import { describe, expect, inject, it } from "vitest";
import type { BuiltBundle } from "../build-probe/types";
import { INJECTED_FAULT_MARKER } from "./fault-injector";

describe("production bundle", () => {
  it("resolves the fault seam to the no-op (its call sites are gone), and has no fault injector", async () => {
    const res = await fetch(`${inject("buildProbeUrl")}/bundle`);
    expect(res.status, await res.clone().text()).toBe(200);
    const bundle = (await res.json()) as BuiltBundle;
    const text = bundle.files.map((f) => f.text).join("\n");
    expect(text.length).toBeGreaterThan(100_000); // a real Worker bundle, not an empty build
    expect(text).toContain("/contacts/v1/lists/all/contacts/all"); // the route table is in it
    // The seam's point names are string literals at its call sites: an injector would keep the calls; the
    // production no-op lets the minifier drop them...
    for (const point of ["sync:before-decide", "sync:after-decide", "sync:commit", "sync:after-commit", "dlq:record"]) {
      expect(text, point).not.toContain(point);
    }
    // ...and nothing of the injector: neither its marker nor its arming functions.
    expect(text).not.toContain(INJECTED_FAULT_MARKER);
    expect(text).not.toMatch(/armFaults|disarmFaults|InjectedFault|fault-injector/);
  });
});
