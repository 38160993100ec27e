/**
 * @module CRM cards on a record (docs/reference/cards.md): `GET .../cards` asks every installed app's record
 * types for their card data, each action with the token that lets this viewer run it on this record;
 * `POST .../cards/:cardId/actions` runs an action a card offered, and only such an action.
 */
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { notFound } from "../../lib/errors";
import { json } from "../../lib/http";
import { route } from "../../http/route";
import { runAction } from "../../services/cards/actions";
import { installedCards, viewCards, type Viewer } from "../../services/cards/view";
import { type CardRecordType } from "../../schemas/cards/view";
import { getObject, scopeFor } from "../../services/crm/records";
import { findUser } from "../../services/accounts/tenancy";
import type { Db } from "../../db/client";
import type { Principal } from "../../lib/principal";
import * as s from "../../schemas/cards/view";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM cards";
const base = "/crm/v3/objects/:objectType/:objectId/cards";

/** The viewing user and record, both of the caller's account (another account's record is a 404). */
/** The record is the account's (its shard); the user is in the control plane. */
async function viewer(db: Db, control: Db, principal: Principal, type: CardRecordType, objectId: number, userId: number): Promise<Viewer> {
  requireScopes(principal, [scopeFor(type, "read")]);
  const portalId = portalOf(principal);
  const record = await getObject(db, portalId, type, objectId);
  const user = await findUser(control, portalId, userId);
  return { portalId, user, record, type };
}

export const cardViewRoutes = [
  route({
    method: "GET",
    path: base,
    summary: "Fetch the CRM cards of a record from the integrators (one signed call per record type, in parallel)",
    tag,
    auth: account,
    params: s.viewParams,
    query: s.viewQuery,
    responses: { 200: { description: "One entry per card; a failing integrator gives its card status ERROR", schema: s.viewResponse } },
    callsOut: true,
    handler: async ({ db, control, env, principal, params, query, now }) => {
      const v = await viewer(db, control, principal, params.objectType, params.objectId, query.userId);
      return json({ cards: await viewCards(control, env, v, now) });
    },
  }),
  route({
    method: "POST",
    path: `${base}/:cardId/actions`,
    summary: "Run an action the card view offered (with its actionToken): call the action hook (signed) or get the iframe URL",
    tag,
    auth: account,
    params: s.actionParams,
    body: s.actionBody,
    responses: {
      200: { description: "The integrator's outcome, or the iframe to open", schema: s.actionResponse },
      400: { description: "Nothing was called: the action was not offered (missing or wrong actionToken), its token expired, its uri is outside the baseUris or gives a parameter the service sends another value" },
    },
    handler: async ({ db, control, env, principal, params, body, now }) => {
      const v = await viewer(db, control, principal, params.objectType, params.objectId, body.userId);
      const card = (await installedCards(control, v.portalId, v.type)).find((c) => c.id === params.cardId);
      if (!card) throw notFound(`CRM card ${params.cardId} not found on ${params.objectType} records of this account`);
      return json(await runAction(v, card, body.action, env, now));
    },
  }),
];
