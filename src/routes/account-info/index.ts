/** @module `/account-info/v3` (docs/reference/account-info.md): the account's settings and its private apps' daily usage. */
import type { AuthRule } from "../../http/auth";
import { portalOf } from "../../http/auth";
import { json } from "../../lib/http";
import { route } from "../../http/route";
import { accountDetails, dailyPrivateAppUsage } from "../../services/account-info/details";
import * as s from "../../schemas/account-info";

/**
 * Every account route here needs a scope (the authentication matrix holds that): the account-info family's
 * own, `account-info.security.read`, which new apps and private apps get by default.
 */
const auth: AuthRule = { kinds: ["oauth", "private_app"], scopes: ["account-info.security.read"] };
const tag = "Account info";

export const accountInfoRoutes = [
  route({
    method: "GET",
    path: "/account-info/v3/details",
    summary: "The account's id, type, time zone with its UTC offset now, currencies, web app host and data hosting location",
    tag,
    auth,
    responses: { 200: { description: "The account's details", schema: s.accountDetails } },
    handler: async ({ control, principal, now, url }) => json(await accountDetails(control, portalOf(principal), now, url.host)),
  }),
  route({
    method: "GET",
    path: "/account-info/v3/api-usage/daily/private-apps",
    summary: "Requests made today (since midnight in the account's time zone) with the account's private-app tokens",
    tag,
    auth,
    responses: { 200: { description: "Today's usage", schema: s.dailyUsage } },
    handler: async ({ env, control, principal, now }) => json(await dailyPrivateAppUsage(env, control, portalOf(principal), now)),
  }),
];
