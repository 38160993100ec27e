/**
 * @module Operator changes to an app `/admin/v1/apps/:appId`. Changing an app's scopes is where the CRM
 * card rule is enforced: a scope cannot be removed while CRM cards exist for its object types.
 * `refreshTokenRotation` turns refresh-token rotation with reuse detection on for the app (RFC 9700,
 * section 4.14.2, for public clients); off, refresh tokens are stable as in the real service.
 */
import { z } from "zod";
import type { AuthRule } from "../../http/auth";
import { eq } from "drizzle-orm";
import { apps } from "../../db/tables/tenancy";
import { notFound } from "../../lib/errors";
import { json } from "../../lib/http";
import { route } from "../../http/route";
import { setAppScopes } from "../../services/cards/types";
import { canonicalId, scopeList } from "../../schemas/accounts/operator";

const admin: AuthRule = { kinds: ["admin"] };

export const appParams = z.object({ appId: canonicalId("appId") });
const patchAppBody = z
  .object({ scopes: scopeList.optional(), refreshTokenRotation: z.boolean().optional() })
  .refine((b) => b.scopes !== undefined || b.refreshTokenRotation !== undefined, { message: "Give scopes, refreshTokenRotation or both" });
const appResponse = z.object({ appId: z.number().int(), name: z.string(), scopes: z.array(z.string()), refreshTokenRotation: z.boolean() });

export const adminAppRoutes = [
  route({
    method: "PATCH",
    path: "/admin/v1/apps/:appId",
    summary: "Replace an app's scopes (refused while CRM cards still need a removed scope) and/or turn refresh-token rotation on or off",
    tag: "Operator",
    auth: admin,
    params: appParams,
    body: patchAppBody,
    responses: {
      200: { description: "The app as it now is", schema: appResponse },
      409: { description: "A removed scope is still needed by existing CRM cards" },
    },
    handler: async ({ control: db, params, body }) => {
      const rotation = body.refreshTokenRotation === undefined ? {} : { refreshTokenRotation: body.refreshTokenRotation };
      if (body.scopes) return json(await setAppScopes(db, params.appId, body.scopes, rotation));
      const row = await db
        .update(apps)
        .set(rotation)
        .where(eq(apps.appId, params.appId))
        .returning({ appId: apps.appId, name: apps.name, scopes: apps.scopes, refreshTokenRotation: apps.refreshTokenRotation })
        .get();
      if (!row) throw notFound(`App ${params.appId} not found`);
      return json(row);
    },
  }),
];
