/**
 * @module Sent mail (sent_emails): what an account's SMTP tokens and the transactional single send sent.
 * A Worker cannot accept SMTP, so SMTP mail arrives through the operator API (`POST /admin/v1/smtp/messages`)
 * from whatever speaks SMTP in front: `npm run dev`'s local server, or a relay the operator runs
 * (docs/how-to/send-mail.md). Those callers deliver the mail themselves; the service records it for the
 * account. The HTTP single send is recorded the same way and, when EMAIL_RELAY_URL is set, handed to that
 * relay through the outbound guard; without one it is only recorded.
 */
import { and, desc, eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { directoryTtlMs, shardOfAccount } from "../../db/directory";
import { newId } from "../../db/id-ranges";
import { sentEmails } from "../../db/tables/content";
import { ApiError, notFound } from "../../lib/errors";
import { guardedFetch, loopbackAllowed, OutboundError, outboundResolver } from "../../lib/outbound";
import type { SingleSendInput, SmtpMessageInput } from "../../schemas/smtp";
import { verifySmtpCredentials } from "./tokens";

export type SentEmailRow = typeof sentEmails.$inferSelect;

const RELAY_TIMEOUT_MS = 10_000;
const RELAY_MAX_RESPONSE_BYTES = 64 * 1024;

/** One answer for every refused credential (unknown, deleted, reset, suspended), as verifySmtpCredentials gives. */
const refused = () => new ApiError("INVALID_AUTHENTICATION", "The SMTP API token's userName or password is not valid.");

/** Checks an SMTP token; what the local SMTP server asks at AUTH so a bad token gets 535 before any mail. */
export async function verifyToken(env: Env, userName: string, password: string) {
  const auth = await verifySmtpCredentials(env, userName, password);
  if (!auth.ok) throw refused();
  return { portalId: auth.portalId, userName: auth.userName };
}

/**
 * Records mail submitted over SMTP for the token's account. The token is checked first and nothing is
 * written when it fails; the account's own shard is found from the token, never from the caller.
 */
export async function recordSmtpMessage(env: Env, control: Db, openShard: (shard: string | null) => Db, input: SmtpMessageInput, now: number) {
  const auth = await verifyToken(env, input.userName, input.password);
  const shard = await shardOfAccount(control, auth.portalId, directoryTtlMs(env));
  if (shard === undefined) throw refused();
  return openShard(shard)
    .insert(sentEmails)
    .values({
      id: newId("sent_emails"),
      portalId: auth.portalId,
      tokenUserName: auth.userName,
      fromAddress: input.from,
      toAddresses: input.to,
      ccAddresses: input.cc,
      bccAddresses: input.bcc,
      subject: input.subject ?? null,
      textBody: input.text ?? null,
      htmlBody: input.html ?? null,
      // The SMTP side (the dev server or the operator's relay) delivers the mail; here it is recorded as sent.
      status: "COMPLETE",
      sendResult: "SENT",
      createdAt: now,
    })
    .returning()
    .get();
}

/** What a relay receives for one single send (docs/how-to/send-mail.md). */
export function relayPayload(row: SentEmailRow) {
  return {
    id: String(row.id),
    portalId: row.portalId,
    emailId: row.emailId,
    from: row.fromAddress,
    to: row.toAddresses,
    cc: row.ccAddresses,
    bcc: row.bccAddresses,
    ...row.extra,
  };
}

/**
 * The single send: recorded, then handed to EMAIL_RELAY_URL when one is configured. A relay that fails or
 * refuses leaves the mail recorded with sendResult UNDELIVERABLE (the caller sees it in the answer); the
 * reason is kept for operators only.
 */
export async function sendSingle(env: Env, db: Db, portalId: number, input: SingleSendInput, now: number): Promise<SentEmailRow> {
  const extra: Record<string, unknown> = {};
  if (input.message.replyTo) extra.replyTo = input.message.replyTo;
  if (input.message.sendId !== undefined) extra.sendId = input.message.sendId;
  if (input.contactProperties) extra.contactProperties = input.contactProperties;
  if (input.customProperties) extra.customProperties = input.customProperties;
  const relay = env.EMAIL_RELAY_URL ?? "";
  const row = await db
    .insert(sentEmails)
    .values({
      id: newId("sent_emails"),
      portalId,
      tokenUserName: null,
      fromAddress: input.message.from ?? null,
      toAddresses: [input.message.to],
      ccAddresses: input.message.cc ?? [],
      bccAddresses: input.message.bcc ?? [],
      emailId: input.emailId,
      extra,
      // Without a relay there is nowhere further to send: the record is the whole send (local development).
      status: relay ? "PROCESSING" : "COMPLETE",
      sendResult: relay ? null : "SENT",
      createdAt: now,
    })
    .returning()
    .get();
  if (!relay) return row;
  let failure: string | null = null;
  try {
    const res = await guardedFetch(
      { method: "POST", url: relay, headers: { "content-type": "application/json" }, body: JSON.stringify(relayPayload(row)) },
      { allowLoopback: loopbackAllowed(env), resolver: outboundResolver(env), timeoutMs: RELAY_TIMEOUT_MS, maxBytes: RELAY_MAX_RESPONSE_BYTES, maxRedirects: 0 },
    );
    if (res.status < 200 || res.status > 299) failure = `relay answered ${res.status}`;
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    failure = `relay ${err.kind}: ${err.message}`;
  }
  return db
    .update(sentEmails)
    .set({ status: "COMPLETE", sendResult: failure ? "UNDELIVERABLE" : "SENT", statusDetail: failure })
    .where(and(eq(sentEmails.id, row.id), eq(sentEmails.portalId, portalId)))
    .returning()
    .get()
    .then((updated) => updated ?? row);
}

export interface SentEmailPageQuery {
  after?: number;
  limit: number;
}

/** An account's sent mail, newest first; `after` is the last id of the previous page. */
export async function pageSentEmails(db: Db, portalId: number, q: SentEmailPageQuery) {
  const rows = await db
    .select()
    .from(sentEmails)
    .where(and(eq(sentEmails.portalId, portalId), q.after === undefined ? undefined : lt(sentEmails.id, q.after)))
    .orderBy(desc(sentEmails.id))
    .limit(q.limit + 1)
    .all();
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return { rows: page, next: rows.length > q.limit && last ? String(last.id) : null };
}

/** The operator's listing: the account's shard from the directory (404 for an unknown account). */
export async function pageAccountEmails(env: Env, control: Db, openShard: (shard: string | null) => Db, portalId: number, q: SentEmailPageQuery) {
  const shard = await shardOfAccount(control, portalId, directoryTtlMs(env));
  if (shard === undefined) throw notFound(`Account ${portalId} not found`);
  return pageSentEmails(openShard(shard), portalId, q);
}

export const presentSentEmail = (r: SentEmailRow) => ({
  id: String(r.id),
  portalId: r.portalId,
  tokenUserName: r.tokenUserName,
  from: r.fromAddress,
  to: r.toAddresses,
  cc: r.ccAddresses,
  bcc: r.bccAddresses,
  subject: r.subject,
  text: r.textBody,
  html: r.htmlBody,
  emailId: r.emailId,
  extra: r.extra,
  status: r.status,
  sendResult: r.sendResult,
  createdAt: new Date(r.createdAt).toISOString(),
});

/** The client's EmailSendStatusView for a recorded send. */
export const presentSendStatus = (r: SentEmailRow) => ({
  statusId: String(r.id),
  status: r.status,
  ...(r.sendResult ? { sendResult: r.sendResult } : {}),
  requestedAt: new Date(r.createdAt).toISOString(),
  startedAt: new Date(r.createdAt).toISOString(),
  ...(r.status === "COMPLETE" ? { completedAt: new Date(r.createdAt).toISOString() } : {}),
});
