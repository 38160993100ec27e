/**
 * @module Sent mail. The operator's SMTP side (ADMIN_TOKEN): `POST /admin/v1/smtp/verify` checks a token at
 * SMTP AUTH, `POST /admin/v1/smtp/messages` records a message sent with one, and
 * `GET /admin/v1/accounts/{portalId}/emails` lists an account's sent mail. The transactional single send
 * `POST /marketing/v3/transactional/single-email/send`, as the official client calls it: OAuth or
 * private-app token with scope `transactional-email`, and the account's transactional email add-on.
 */
import type { AuthRule } from "../../http/auth";
import { json } from "../../lib/http";
import { pageBody } from "../../lib/paging";
import { route } from "../../http/route";
import * as mail from "../../services/smtp/mail";
import { portalParams } from "../../schemas/accounts/operator";
import * as s from "../../schemas/smtp";
import { accountOf } from "./tokens";

const admin: AuthRule = { kinds: ["admin"] };
const refusedToken = { 401: { description: "The token's userName or password is not valid (unknown, deleted, reset, or its account suspended)" } };

export const smtpMailRoutes = [
  route({
    method: "POST",
    path: "/admin/v1/smtp/verify",
    summary: "Check an SMTP API token's userName and password (what an SMTP server asks at AUTH)",
    tag: "Operator",
    auth: admin,
    body: s.smtpCredentialsBody,
    responses: { 200: { description: "The token is valid", schema: s.smtpVerifyResponse }, ...refusedToken },
    handler: async ({ env, body }) => json(await mail.verifyToken(env, body.userName, body.password)),
  }),
  route({
    method: "POST",
    path: "/admin/v1/smtp/messages",
    summary: "Record a message sent over SMTP with an account's token (the token is checked; nothing is stored when it fails)",
    tag: "Operator",
    auth: admin,
    body: s.smtpMessageBody,
    responses: { 201: { description: "Recorded in the token's account", schema: s.sentStatusResponse }, ...refusedToken, 413: { description: "Larger than 1 MiB" } },
    handler: async ({ env, control, openShard, body, now }) => {
      const row = await mail.recordSmtpMessage(env, control, openShard, body, now);
      return json({ id: String(row.id), status: row.status }, 201);
    },
  }),
  route({
    method: "GET",
    path: "/admin/v1/accounts/:portalId/emails",
    summary: "A page of an account's sent mail, newest first",
    tag: "Operator",
    auth: admin,
    params: portalParams,
    query: s.sentEmailPageQuery,
    responses: { 200: { description: "The account's sent mail", schema: s.sentEmailPage }, 404: { description: "No such account" } },
    handler: async ({ env, control, openShard, params, query, url }) => {
      const page = await mail.pageAccountEmails(env, control, openShard, params.portalId, query);
      return json(pageBody(page.rows.map(mail.presentSentEmail), page.next, url));
    },
  }),
  route({
    method: "POST",
    path: "/marketing/v3/transactional/single-email/send",
    summary: "Send a transactional email (recorded in the account's sent mail; handed to EMAIL_RELAY_URL when set)",
    tag: "Transactional email",
    auth: { kinds: ["oauth", "private_app"], scopes: ["transactional-email"] },
    body: s.singleSendBody,
    callsOut: true,
    responses: { 200: { description: "The send's status", schema: s.emailSendStatus }, 403: { description: "No transactional email add-on, or scope missing" } },
    handler: async ({ env, db, control, principal, body, now }) => {
      const portalId = await accountOf(control, principal);
      return json(mail.presentSendStatus(await mail.sendSingle(env, db, portalId, body, now)));
    },
  }),
];
