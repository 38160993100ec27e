/**
 * @module Queue entry point: routes each batch to the consumer of its queue, then reports it
 * (docs/reference/operations.md): one log line per batch with its outcomes, duration and D1 statements (and, for the
 * maintenance queue, each message's job run), and one usage data point per
 * settled sync message (account, store, object type, outcome, lag since PUT /sync/messages accepted it).
 */
import type { StatementMeter } from "../db/client";
import { logLine, type MaintenanceRun } from "../lib/observability";
import { usageRecorder, type SyncOutcome } from "../services/accounts/metering";
import { consumeDeadLetters } from "../services/ecomm/dead-letter";
import { consumeSyncBatch, type Settlement } from "../services/ecomm/consumer";
import { consumeWebhookBatch, consumeWebhookDeadLetters } from "../services/webhooks/deliver";
import { consumeMaintenanceBatch, consumeMaintenanceDeadLetters } from "../services/maintenance/consumer";

const ROLES = ["sync", "sync-dlq", "webhooks", "webhooks-dlq", "maintenance", "maintenance-dlq"] as const;

/**
 * Which consumer a queue's batches go to, by the end of its name: `crm-edge-sync` in production,
 * `crm-edge-staging-sync` on staging (docs/how-to/staging-and-ci.md), and so on for every deployment that
 * keeps the suffixes of wrangler.toml's queue names. The further sync queues of shard groups
 * (src/services/ecomm/sync-queues.ts) end in `-sync-<n>`: `crm-edge-sync-1`, `crm-edge-staging-sync-1`.
 */
export function queueRole(name: string): (typeof ROLES)[number] | undefined {
  if (/-sync-\d+$/.test(name)) return "sync";
  return ROLES.find((role) => name.endsWith(`-${role}`));
}

export async function handleQueue(batch: MessageBatch, env: Env, ctx: ExecutionContext): Promise<void> {
  const startedAt = Date.now();
  const meter: StatementMeter = { statements: 0 };
  let outcomes: Record<string, number> = {};
  let runs: MaintenanceRun[] | undefined;
  try {
    switch (queueRole(batch.queue)) {
      case "sync":
        outcomes = reportSync(batch, await consumeSyncBatch(batch, env, meter, ctx), env, Date.now());
        return;
      case "sync-dlq":
        outcomes = await consumeDeadLetters(batch, env, meter);
        return;
      case "webhooks":
        outcomes = await consumeWebhookBatch(batch, env, meter);
        return;
      case "webhooks-dlq":
        outcomes = await consumeWebhookDeadLetters(batch, env, meter);
        return;
      case "maintenance":
        ({ outcomes, runs } = await consumeMaintenanceBatch(batch, env, meter));
        return;
      case "maintenance-dlq":
        outcomes = consumeMaintenanceDeadLetters(batch);
        return;
      default:
        console.error(`no consumer for queue ${batch.queue}; retrying batch`);
        batch.retryAll({ delaySeconds: 30 });
        outcomes = { retry: batch.messages.length };
    }
  } finally {
    logLine({ type: "queue_batch", queue: batch.queue, messages: batch.messages.length, outcomes, durationMs: Date.now() - startedAt, d1Statements: meter.statements, ...(runs ? { runs } : {}) });
  }
}

export function syncOutcome(s: Settlement): SyncOutcome {
  if (s.action === "retry") return "retry";
  if (s.reason.startsWith("applied")) return "applied";
  if (s.reason.startsWith("recorded")) return "error";
  if (s.reason.startsWith("stale")) return "stale";
  return "dropped";
}

/** The fields of a v1 message body the metrics need, read without a second schema parse (hot path). */
function origin(body: unknown): { portalId: number; storeId: string; objectType: string; receivedAt: number } | null {
  if (typeof body !== "object" || body === null) return null;
  const b = body as Record<string, unknown>;
  const { portalId, storeId, objectType, receivedAt } = b;
  if (typeof portalId !== "number" || typeof storeId !== "string" || typeof objectType !== "string" || typeof receivedAt !== "number") return null;
  return { portalId, storeId, objectType, receivedAt };
}

/** Counts the batch's settlements by outcome and writes one usage data point per message it can attribute. */
function reportSync(batch: MessageBatch, settled: Settlement[], env: Env, now: number): Record<string, number> {
  const usage = usageRecorder(env);
  const bodies = new Map(batch.messages.map((m) => [m.id, m.body]));
  const outcomes: Record<string, number> = {};
  for (const s of settled) {
    const outcome = syncOutcome(s);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    const o = origin(bodies.get(s.id));
    if (o) usage.syncMessage({ portalId: o.portalId, storeId: o.storeId, objectType: o.objectType, outcome, lagMs: Math.max(0, now - o.receivedAt), shard: s.shard ?? "none" });
  }
  return outcomes;
}
