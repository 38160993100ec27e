/**
 * @module JSON endpoints of the record page's script (docs/reference/web.md), authenticated by the
 * session cookie: one card's data (so each card loads, fails and reloads on its own), whose actions carry
 * the tokens that let the signed-in user run them on this record, and running such an action
 * (docs/reference/cards.md "Actions").
 * State-changing calls carry the session's CSRF token in `X-CSRF-Token`. They call the same card services
 * as the API (`/crm/v3/objects/.../cards`); the viewing user is the signed-in one.
 */
import type { Db } from "../../db/client";
import type { AuthRule } from "../../http/auth";
import { apiSession } from "../../http/app-session";
import { notFound } from "../../lib/errors";
import { json } from "../../lib/http";
import { route } from "../../http/route";
import type { Session } from "../../http/session";
import { runAction } from "../../services/cards/actions";
import { fetchCard, installedCards, type InstalledCard, type Viewer } from "../../services/cards/view";
import { type CardRecordType } from "../../schemas/cards/view";
import { getObject } from "../../services/crm/records";
import * as s from "../../schemas/web";

const session: AuthRule = { kinds: ["session"] };
const tag = "Web app";
const base = "/app/api/cards/:objectType/:objectId/:cardId";

/** The signed-in viewer of a record of their account and one card shown on it; anything else is a 404. */
async function cardOnRecord(db: Db, control: Db, user: Session, type: CardRecordType, objectId: number, cardId: number): Promise<{ v: Viewer; card: InstalledCard }> {
  const record = await getObject(db, user.portalId, type, objectId);
  const card = (await installedCards(control, user.portalId, type)).find((c) => c.id === cardId);
  if (!card) throw notFound(`CRM card ${cardId} not found on ${type} records of this account`);
  return { v: { portalId: user.portalId, user: { userId: user.userId, email: user.email }, record, type }, card };
}

export const webApiRoutes = [
  route({
    method: "GET",
    path: base,
    summary: "One CRM card of a record, fetched from its integrator (signed-in session)",
    tag,
    auth: session,
    params: s.cardParams,
    hidden: true,
    callsOut: true, // counted before the integrator is called: a limited session never reaches it
    responses: { 200: { description: "The card; a failing integrator gives status ERROR", schema: s.cardResponse } },
    handler: async ({ db, control, env, request, params, now }) => {
      const user = await apiSession(control, request, now, { csrf: false });
      const { v, card } = await cardOnRecord(db, control, user, params.objectType, params.objectId, params.cardId);
      const view = await fetchCard(v, card, env, now);
      return json({ ...view, propertyDefinitions: card.propertyDefinitions }, 200, { "cache-control": "no-store" });
    },
  }),
  route({
    method: "POST",
    path: `${base}/actions`,
    summary: "Run an action the card offered, with its actionToken: an action hook (signed call) or the iframe URL (signed-in session, X-CSRF-Token)",
    tag,
    auth: session,
    params: s.cardParams,
    body: s.actionBody,
    hidden: true,
    responses: { 200: { description: "The integrator's outcome, or the iframe to open", schema: s.actionResponse } },
    handler: async ({ db, control, env, request, params, body, now }) => {
      const user = await apiSession(control, request, now, { csrf: true });
      const { v, card } = await cardOnRecord(db, control, user, params.objectType, params.objectId, params.cardId);
      return json(await runAction(v, card, body.action, env, now), 200, { "cache-control": "no-store" });
    },
  }),
];
