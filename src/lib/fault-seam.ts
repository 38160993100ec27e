/**
 * @module Fault seam of the queue consumers (docs/explanation/reliability.md, "The fault hook"). The
 * consumers call `faultPoint` at the points where a crash matters for at-least-once delivery: before the
 * ordering decision, between the decision and the D1 commit, at the commit, after the commit but before
 * the acks, and in the dead-letter consumer.
 *
 * In production this is a no-op. The test run (vitest.config.ts, plugin `testSeams`) resolves this module
 * to test/reliability/fault-injector.ts instead, which tests arm to throw at chosen points; so no injector
 * code exists in the deployed bundle (test/reliability/bundle.test.ts builds it and checks).
 * `shard:open` fails one shard database as an outage would; its id is the shard's binding name.
 * `webhook:send` is the webhook outbox drain between claiming pending events and sending them to the queue
 * (its ids are the events' ids): a crash there must only delay the events.
 * `fixture:write` is a fixture's load between writing its webhook subscriptions (control plane) and its data
 * batch (the account's shard), its id the portalId: a failure there must put the subscriptions back;
 * `import:write` the same point of an import, whose people must then be taken back.
 */

export type FaultPoint = "sync:before-decide" | "sync:after-decide" | "sync:commit" | "sync:after-commit" | "dlq:record" | "shard:open" | "webhook:send" | "fixture:write" | "import:write";

/** `ids` are the sync message ids (SyncQueueMessage.id) the step is about to handle. */
export function faultPoint(_point: FaultPoint, _ids: readonly string[]): void {}
