/** @module `/crm/v3/owners` (docs/reference/owners.md): the account's users as owners, live and archived. */
import type { AuthRule } from "../../http/auth";
import { portalOf } from "../../http/auth";
import { json } from "../../lib/http";
import { pageBody } from "../../lib/paging";
import { route } from "../../http/route";
import { getOwner, listOwners } from "../../services/owners/owners";
import * as s from "../../schemas/owners";

const auth: AuthRule = { kinds: ["oauth", "private_app"], scopes: ["crm.objects.owners.read"] };
const tag = "CRM owners";

export const ownerRoutes = [
  route({
    method: "GET",
    path: "/crm/v3/owners",
    summary: "List the account's owners (its users), live or archived, paged by owner id; email picks one",
    tag,
    auth,
    query: s.ownersQuery,
    responses: { 200: { description: "A page of owners", schema: s.ownerPage } },
    handler: async ({ control, principal, query, url }) => {
      const page = await listOwners(control, portalOf(principal), query);
      return json(pageBody(page.results, page.next, url));
    },
  }),
  route({
    method: "GET",
    path: "/crm/v3/owners/:ownerId",
    summary: "Read an owner by owner id, or by user id with idProperty=userId",
    tag,
    auth,
    params: s.ownerParams,
    query: s.ownerQuery,
    responses: { 200: { description: "The owner", schema: s.publicOwner } },
    handler: async ({ control, principal, params, query }) => json(await getOwner(control, portalOf(principal), params.ownerId, query.idProperty, query.archived)),
  }),
];
