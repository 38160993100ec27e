/**
 * @module SMTP API tokens `/email/public/v1/smtpapi/tokens` (docs/reference/smtp.md): OAuth access
 * tokens only, scope `transactional-email`, and the account needs the transactional email add-on (else 403).
 * Passwords appear only in the create and reset responses; never in lists, logs or error bodies.
 */
import { z } from "zod";
import type { Db } from "../../db/client";
import type { AuthRule } from "../../http/auth";
import { portalOf } from "../../http/auth";
import { forbidden } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import type { Principal } from "../../lib/principal";
import { route } from "../../http/route";
import * as smtp from "../../services/smtp/tokens";
import * as s from "../../schemas/smtp";

export const oauthOnly: AuthRule = { kinds: ["oauth"], scopes: ["transactional-email"] };
const tag = "SMTP API tokens";
const base = "/email/public/v1/smtpapi/tokens";

/** The token's fields without the secret ones (`password`, `passwordHash`): what a listing shows. */
export const presentToken = (r: smtp.SmtpTokenRow) => ({
  portalId: r.portalId,
  userName: r.userName,
  emailCampaignId: r.emailCampaignId,
  createdAt: r.createdAt,
  deleted: r.deleted,
  createdBy: r.createdBy,
  appId: r.appId,
  campaignName: r.campaignName,
});

/**
 * The token with its one-time password. passwordHash is null (as in the documented reset example): the
 * stored PBKDF2 record is never sent, and any fingerprint of the password would only help guessing it.
 */
const withPassword = (r: smtp.SmtpTokenRow, password: string) => {
  const { portalId, userName, ...rest } = presentToken(r);
  return { portalId, userName, password, passwordHash: null, ...rest };
};

/** The add-on check, done before anything else so accounts without it learn nothing about tokens. */
export async function accountOf(db: Db, principal: Principal): Promise<number> {
  const portalId = portalOf(principal);
  await smtp.requireTransactionalEmail(db, portalId);
  return portalId;
}

function oauthCaller(p: Principal) {
  if (p.kind !== "oauth") throw forbidden("SMTP API tokens require an OAuth access token.");
  return { appId: p.appId, userId: p.userId };
}

/** Both faces' create: the add-on check, then a token whose clear password only the caller sees. */
export async function createFor(c: { db: Db; control: Db; principal: Principal; now: number }, input: smtp.CreateTokenInput) {
  const portalId = await accountOf(c.control, c.principal);
  return smtp.createToken(c.db, c.control, portalId, oauthCaller(c.principal), input, c.now);
}

export const smtpTokenRoutes = [
  route({
    method: "POST",
    path: base,
    summary: "Create an SMTP API token (the password is shown only in this response)",
    tag,
    auth: oauthOnly,
    body: s.createTokenBody,
    responses: { 201: { description: "Created", schema: s.tokenWithPassword }, 403: { description: "No transactional email add-on" } },
    handler: async (c) => {
      const { row, password } = await createFor(c, c.body);
      return json(withPassword(row, password), 201);
    },
  }),
  route({
    method: "GET",
    path: base,
    summary: "List the account's SMTP API tokens (a bare array, never with passwords)",
    tag,
    auth: oauthOnly,
    responses: { 200: { description: "The tokens", schema: z.array(s.tokenResponse) } },
    handler: async ({ db, control, principal }) => json((await smtp.listTokens(db, await accountOf(control, principal))).map(presentToken)),
  }),
  route({
    method: "POST",
    path: `${base}/:userName/password-reset`,
    summary: "Reset a token's password; the old password stops working",
    tag,
    auth: oauthOnly,
    params: s.userNameParams,
    responses: { 200: { description: "The token with its new password", schema: s.tokenWithPassword } },
    handler: async ({ db, control, principal, params }) => {
      const portalId = await accountOf(control, principal);
      const { row, password } = await smtp.resetPassword(db, portalId, params.userName);
      return json(withPassword(row, password));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:userName`,
    summary: "Delete an SMTP API token",
    tag,
    auth: oauthOnly,
    params: s.userNameParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ db, control, principal, params, now }) => {
      await smtp.deleteToken(db, await accountOf(control, principal), params.userName, now);
      return noContent();
    },
  }),
];
