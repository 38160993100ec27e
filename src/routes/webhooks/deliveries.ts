/**
 * @module The app's webhook delivery log `/webhooks/v3/{appId}/deliveries` (docs/reference/webhooks.md "The
 * delivery log"), with the developer key: recent deliveries with their attempts, and re-sending an exhausted
 * one. The log is stored with the accounts whose events it carries; reads.ts reads it over their databases.
 */
import { requireOwnApp } from "../../lib/principal";
import { json } from "../../lib/http";
import { route } from "../../http/route";
import { sendMessages } from "../../services/webhooks/drain";
import * as log from "../../services/webhooks/log";
import * as reads from "../../services/webhooks/reads";
import { WEBHOOK_MESSAGE_VERSION, type WebhookEvent } from "../../services/webhooks/message";
import { base, developer, tag } from "./settings";
import * as s from "../../schemas/webhooks/settings";

export const webhookDeliveryRoutes = [
  route({
    method: "GET",
    path: `${base}/deliveries`,
    summary: "List the app's recent webhook deliveries, newest first, with their attempts",
    tag,
    auth: developer,
    params: s.appParams,
    query: s.deliveriesQuery,
    responses: { 200: { description: "A page of deliveries; `paging.next.before` continues", schema: s.deliveryList } },
    handler: async ({ control, principal, params, query, env }) => {
      requireOwnApp(principal, params.appId);
      const page = await reads.listDeliveries(env, control, params.appId, query);
      const results = page.rows.map((r) => log.presentDelivery(r, page.attempts.filter((a) => a.deliveryId === r.id)));
      return json({ results, ...(page.next ? { paging: { next: { before: page.next } } } : {}), ...(page.unavailable.length ? { unavailableShards: page.unavailable } : {}) });
    },
  }),
  route({
    method: "GET",
    path: `${base}/deliveries/:deliveryId`,
    summary: "Read one webhook delivery with its attempts",
    tag,
    auth: developer,
    params: s.deliveryParams,
    responses: { 200: { description: "The delivery", schema: s.deliveryResponse } },
    handler: async ({ control, principal, params, env }) => {
      requireOwnApp(principal, params.appId);
      const d = await reads.findDelivery(env, control, params.appId, params.deliveryId);
      return json(log.presentDelivery(d.row, d.attempts));
    },
  }),
  route({
    method: "POST",
    path: `${base}/deliveries/:deliveryId/resend`,
    summary: "Re-send an exhausted delivery: the same events, one more attempt",
    tag,
    auth: developer,
    params: s.deliveryParams,
    responses: { 202: { description: "Queued again", schema: s.deliveryResponse }, 409: { description: "The delivery is not exhausted" } },
    handler: async ({ control, principal, params, env }) => {
      requireOwnApp(principal, params.appId);
      // The delivery log keeps real time (the app's developer reads it, whatever its accounts' clocks).
      const { row, attempts } = await reads.reopenExhausted(env, control, params.appId, params.deliveryId, Date.now());
      const events = JSON.parse(row.events) as WebhookEvent[];
      // A row of the control plane's older log (no account) is re-sent as such: its attempts are recorded there.
      await sendMessages(env.WEBHOOK_QUEUE, [{ v: WEBHOOK_MESSAGE_VERSION, appId: row.appId, ...(row.portalId !== null ? { portalId: row.portalId } : {}), deliveryId: row.id, attempt: row.attempts, events }]);
      return json(log.presentDelivery(row, attempts), 202);
    },
  }),
];
