/** Drives the queue consumers directly: createMessageBatch -> worker.queue -> getQueueResult (no waiting). */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import worker from "../../src/index";
import { consumeSyncBatch, type Settlement } from "../../src/services/ecomm/consumer";
import { messageId, type SyncQueueMessage } from "../../src/services/ecomm/sync-message";
import { tenant, unique, type Tenant } from "../helpers/api";
import { appSettings, store } from "./helpers";
import { accountD1, SHARDS } from "../helpers/shards";

export interface Origin {
  portalId: number;
  appId: number | null;
  storeId: string;
  storeGen: string;
}

export async function storeGen(portalId: number, storeId: string): Promise<string> {
  const row = await (await accountD1(portalId)).prepare("select generation from ecomm_stores where portal_id = ? and store_id = ?").bind(portalId, storeId).first<{ generation: string }>();
  if (!row) throw new Error(`no store ${storeId}`);
  return row.generation;
}

/** A tenant with app-level settings (OAuth syncs) and a store "shop"; `origin` is what OAuth messages carry. */
export async function bridgeTenant(over: Record<string, unknown> = {}): Promise<{ t: Tenant; origin: Origin }> {
  return bridgeTenantOn(undefined, over);
}

/** A bridge tenant placed on a given shard; undefined lets the placement policy choose. */
export async function bridgeTenantOn(shard: string | undefined, over: Record<string, unknown> = {}): Promise<{ t: Tenant; origin: Origin }> {
  const t = await tenant({ shard });
  await appSettings(t, over);
  await store(t.oauth);
  return { t, origin: { portalId: t.portalId, appId: t.appId, storeId: "shop", storeGen: await storeGen(t.portalId, "shop") } };
}

let seq = 0;
const run = unique("run");

export interface MsgInput {
  externalObjectId: string;
  action?: "UPSERT" | "DELETE";
  changedAt?: number;
  properties?: Record<string, string | number | boolean | null>;
  associations?: Record<string, string[]>;
}

/** A queue message as PUT /sync/messages builds it. Ids increase with each call (later = wins ties). */
export function qmsg(origin: Origin, objectType: SyncQueueMessage["objectType"], m: MsgInput): SyncQueueMessage {
  const receivedAt = Date.now();
  return {
    v: 1,
    id: messageId(receivedAt, run, seq++),
    ...origin,
    objectType,
    receivedAt,
    message: {
      externalObjectId: m.externalObjectId,
      action: m.action ?? "UPSERT",
      changedAt: m.changedAt ?? receivedAt,
      ...(m.properties ? { properties: m.properties } : {}),
      ...(m.associations ? { associations: m.associations } : {}),
    },
  };
}

/** What getQueueResult reports (its type is not in the generated runtime types). */
interface QueueResult {
  outcome: string;
  ackAll: boolean;
  retryBatch: { retry: boolean; delaySeconds?: number };
  explicitAcks: string[];
  retryMessages: { msgId: string }[];
}

/**
 * Delivers one batch to the worker's queue handler (`worker.queue`) and returns the per-message outcome
 * from getQueueResult. getQueueResult does not report retry delays: with `report: true` the batch goes
 * to consumeSyncBatch instead, whose settlement report carries the delay of each retry.
 */
export async function deliver(bodies: unknown[], opts: { attempts?: number; queue?: string; report?: boolean } = {}) {
  const queue = opts.queue ?? "crm-edge-sync";
  const batch = createMessageBatch(
    queue,
    bodies.map((body, i) => ({ id: `qm-${seq++}-${i}`, timestamp: new Date(), attempts: opts.attempts ?? 1, body })),
  );
  const ctx = createExecutionContext();
  let report: Settlement[] = [];
  if (opts.report) report = await consumeSyncBatch(batch, env);
  else await worker.queue(batch, env, ctx);
  const result = (await getQueueResult(batch, ctx)) as QueueResult;
  const idOf = (i: number) => batch.messages[i]!.id;
  return {
    ...result,
    report,
    acked: (i: number) => result.explicitAcks.includes(idOf(i)),
    retried: (i: number) => result.retryMessages.some((r) => r.msgId === idOf(i)),
    /** The delay the consumer chose when it retried message i. */
    delayOf: (i: number) => report.find((r) => r.id === idOf(i) && r.action === "retry")?.delaySeconds,
  };
}
export interface LinkRow {
  service_id: number | null;
  changed_at: number;
  message_id: string;
  deleted: number;
  processed_at: number | null;
  stage: string | null;
  stage_entered_at: number | null;
}

export const linkRow = async (o: Origin, type: string, ext: string) =>
  (await accountD1(o.portalId)).prepare("select * from ecomm_links where portal_id = ? and store_id = ? and object_type = ? and external_id = ?")
    .bind(o.portalId, o.storeId, type, ext)
    .first<LinkRow>();

export const errorRow = async (o: Origin, type: string, ext: string) =>
  (await accountD1(o.portalId)).prepare("select * from ecomm_sync_errors where portal_id = ? and store_id = ? and object_type = ? and external_id = ?")
    .bind(o.portalId, o.storeId, type, ext)
    .first<{ type: string; details: string; status: string; changed_at: number; errored_at: number; app_id: number | null }>();

/** A CRM record by id. Ids never repeat across shards (src/db/id-ranges.ts), so the record is looked up on each. */
export async function record(id: number) {
  const found = await Promise.all(
    [env.DB, ...SHARDS.map((s) => env[s])].map((d1) =>
      d1.prepare("select * from crm_objects where id = ?").bind(id).first<{ properties: string; email: string | null; object_type: string; updated_at: number; archived: number }>(),
    ),
  );
  const row = found.find((r) => r !== null);
  if (!row) throw new Error(`no record ${id}`);
  return { ...row, properties: JSON.parse(row.properties) as Record<string, string> };
}

export async function associations(portalId: number, fromId: number) {
  const { results } = await (await accountD1(portalId)).prepare("select to_type, to_id from crm_associations where portal_id = ? and from_id = ? order by to_type, to_id")
    .bind(portalId, fromId)
    .all<{ to_type: string; to_id: number }>();
  return results.map((r) => `${r.to_type}:${r.to_id}`);
}

/**
 * The real queue binding, except that its first `refusals` sendBatch calls throw, as the platform's do when
 * it is overloaded; `calls` holds the size of every sendBatch call, refused or not.
 */
export function countingQueue(real: Queue, refusals = 0) {
  const calls: number[] = [];
  const queue = {
    send: real.send.bind(real),
    sendBatch: async (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => {
      const batch = [...messages];
      calls.push(batch.length);
      if (calls.length <= refusals) throw new Error("Queue sendBatch failed: Queue is overloaded. Please back off.");
      return real.sendBatch(batch, options);
    },
  } as unknown as Queue;
  return { queue, calls };
}
