/**
 * @module How a request's write emits webhook events: read the account's targets (one control-plane query),
 * let the write append its outbox statements to its own batch, then drain the outbox once the response is
 * on its way. With no targets nothing more happens (no statement, no drain).
 */
import type { Db } from "../../db/client";
import { drainSoon } from "./drain";
import type { ChangeSource } from "../../schemas/webhooks/event-types";
import { webhookOutbox, type Outbox } from "./targets";

export interface WriteContext {
  db: Db;
  control: Db;
  env: Env;
  exec: ExecutionContext;
  now: number;
}

/**
 * The targets' read starts before the write and runs beside the write's own reads: the write awaits it
 * (webhookEventStatements) only when it builds its batch.
 */
export async function writeWithEvents<T>(c: WriteContext, portalId: number, write: (outbox: Promise<Outbox>) => Promise<T>, source: ChangeSource = "API"): Promise<T> {
  const outbox = webhookOutbox(c.control, portalId, c.now, source);
  // A write that fails before it awaits the read must not leave the read's failure unhandled.
  outbox.catch(() => undefined);
  const result = await write(outbox);
  if ((await outbox).targets.length) drainSoon(c.exec, c.db, c.env);
  return result;
}
