/**
 * @module SMTP API tokens v3 `/marketing/v3/transactional/smtp-tokens` (the successor of the v1 endpoints in
 * routes/smtp/tokens.ts, over the same tokens; services/smtp/v3.ts maps them). The v1 rules hold: OAuth access
 * tokens only (a private-app token gets 403), scope `transactional-email`, the add-on (403 without it, before
 * anything else), and the password only in the create and reset answers.
 */
import { json, noContent } from "../../lib/http";
import { pageBody } from "../../lib/paging";
import { route } from "../../http/route";
import * as smtp from "../../services/smtp/tokens";
import { pageTokens, presentTokenV3 } from "../../services/smtp/v3";
import { accountOf, createFor, oauthOnly } from "./tokens";
import * as s from "../../schemas/smtp";

const tag = "SMTP API tokens v3";
const base = "/marketing/v3/transactional/smtp-tokens";
const noAddon = { 403: { description: "No transactional email add-on, or not an OAuth access token" } };

export const smtpTokenV3Routes = [
  route({
    method: "POST",
    path: base,
    summary: "Create an SMTP API token (the password is shown only in this response)",
    tag,
    auth: oauthOnly,
    body: s.createTokenV3Body,
    responses: { 201: { description: "Created", schema: s.tokenV3WithPassword }, ...noAddon },
    handler: async (c) => {
      const { row, password } = await createFor(c, c.body);
      return json(presentTokenV3(row, password), 201);
    },
  }),
  route({
    method: "GET",
    path: base,
    summary: "A page of the account's SMTP API tokens, never with passwords",
    tag,
    auth: oauthOnly,
    query: s.tokenPageQuery,
    responses: { 200: { description: "The tokens", schema: s.tokenV3Page }, ...noAddon },
    handler: async ({ db, control, principal, query, url }) => {
      const page = await pageTokens(db, await accountOf(control, principal), query);
      return json(pageBody(page.rows.map((r) => presentTokenV3(r)), page.next, url));
    },
  }),
  route({
    method: "GET",
    path: `${base}/:tokenId`,
    summary: "Read an SMTP API token (no password)",
    tag,
    auth: oauthOnly,
    params: s.tokenIdParams,
    responses: { 200: { description: "The token", schema: s.tokenV3Response }, ...noAddon },
    handler: async ({ db, control, principal, params }) => {
      const portalId = await accountOf(control, principal);
      return json(presentTokenV3(await smtp.getLiveToken(db, portalId, params.tokenId)));
    },
  }),
  route({
    method: "POST",
    path: `${base}/:tokenId/password-reset`,
    summary: "Reset a token's password; the old password stops working",
    tag,
    auth: oauthOnly,
    params: s.tokenIdParams,
    responses: { 200: { description: "The token with its new password", schema: s.tokenV3WithPassword }, ...noAddon },
    handler: async ({ db, control, principal, params }) => {
      const { row, password } = await smtp.resetPassword(db, await accountOf(control, principal), params.tokenId);
      return json(presentTokenV3(row, password));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:tokenId`,
    summary: "Delete an SMTP API token",
    tag,
    auth: oauthOnly,
    params: s.tokenIdParams,
    responses: { 204: { description: "Deleted" }, ...noAddon },
    handler: async ({ db, control, principal, params, now }) => {
      await smtp.deleteToken(db, await accountOf(control, principal), params.tokenId, now);
      return noContent();
    },
  }),
];
