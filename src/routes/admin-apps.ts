/**
 * @module Operator changes to an app `/admin/v1/apps/:appId` (issue 5). Changing an app's scopes is where
 * spec 5.4 rule 4 is enforced: a scope cannot be removed while CRM cards exist for its object types.
 */
import { z } from "zod";
import type { AuthRule } from "../lib/auth";
import { json } from "../lib/http";
import { route } from "../lib/route";
import { setAppScopes } from "../services/card-types";
import { scopeList } from "./admin.schemas";

const admin: AuthRule = { kinds: ["admin"] };

const appParams = z.object({ appId: z.string().regex(/^\d{1,15}$/, "appId must be a numeric id").transform(Number) });
const patchAppBody = z.object({ scopes: scopeList });
const appScopesResponse = z.object({ appId: z.number().int(), name: z.string(), scopes: z.array(z.string()) });

export const adminAppRoutes = [
  route({
    method: "PATCH",
    path: "/admin/v1/apps/:appId",
    summary: "Replace an app's scopes (refused while CRM cards still need a removed scope)",
    tag: "Operator",
    auth: admin,
    params: appParams,
    body: patchAppBody,
    responses: {
      200: { description: "The app's new scopes", schema: appScopesResponse },
      409: { description: "A removed scope is still needed by existing CRM cards" },
    },
    handler: async ({ db, params, body }) => json(await setAppScopes(db, params.appId, body.scopes)),
  }),
];
