/**
 * The test build of src/lib/fault-seam.ts (vitest.config.ts resolves that module here). Tests arm a plan
 * that may throw at a fault point, as a crash of the consumer there would; unarmed it does nothing, like
 * the production seam. This file is never part of the deployed bundle (test/reliability/bundle.test.ts).
 */
import type { FaultPoint } from "../../src/lib/fault-seam";

export type { FaultPoint };

/** Throws (an InjectedFault) to fail the step at `point` for this batch. */
export type FaultPlan = (point: FaultPoint, ids: readonly string[]) => void;

/** The text every injected failure carries; the bundle check looks for it. */
export const INJECTED_FAULT_MARKER = "crm-edge-test-fault-injector";

export class InjectedFault extends Error {
  constructor(readonly point: FaultPoint) {
    super(`${INJECTED_FAULT_MARKER}: injected fault at ${point}`);
  }
}

let plan: FaultPlan | null = null;

export function armFaults(p: FaultPlan): void {
  plan = p;
}

export function disarmFaults(): void {
  plan = null;
}

export function faultPoint(point: FaultPoint, ids: readonly string[]): void {
  plan?.(point, ids);
}
