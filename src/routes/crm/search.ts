/** @module `POST /crm/v3/objects/{objectType}/search` (docs/reference/crm.md "Search"). */
import type { z } from "zod";
import type { ObjectType } from "../../db/tables/crm";
import { portalOf, requireScopes } from "../../http/auth";
import { jsonText } from "../../lib/http";
import { route } from "../../http/route";
import * as crm from "../../services/crm/records";
import { answeredProperties } from "../../services/crm/properties";
import { searchObjects, type SearchInput } from "../../services/crm/search";
import { MAX_TOTAL } from "../../schemas/crm/search";
import { searchIndexedUntil } from "../../services/testkit/quirks";
import { recordText, splitAnswered } from "./record-text";
import { typeParams } from "../../schemas/crm/objects";
import { searchBody, searchResponse } from "../../schemas/crm/search";

/** `"-prop"` is descending, `"prop"` ascending; the object form is taken as is. */
function sortOf(sorts: z.output<typeof searchBody>["sorts"]): SearchInput["sort"] {
  const s = sorts?.[0];
  if (s === undefined) return undefined;
  if (typeof s !== "string") return s;
  return s.startsWith("-") ? { propertyName: s.slice(1), direction: "DESCENDING" } : { propertyName: s, direction: "ASCENDING" };
}

export const crmSearchRoutes = [
  route({
    method: "POST",
    path: "/crm/v3/objects/:objectType/search",
    summary: "Search records: filter groups (ORed) of filters (ANDed), query, one sort, after paging",
    tag: "CRM objects",
    auth: { kinds: ["oauth", "private_app"] },
    params: typeParams,
    body: searchBody,
    responses: { 200: { description: "A page of matches and their total", schema: searchResponse } },
    handler: async ({ db, principal, params, body }) => {
      const type: ObjectType = params.objectType;
      requireScopes(principal, [crm.scopeFor(type, "read")]);
      const after = body.after ?? 0;
      const { system, stored } = splitAnswered(answeredProperties(type, body.properties));
      const { rows, total } = await searchObjects(db, portalOf(principal), type, {
        filterGroups: body.filterGroups ?? [],
        sort: sortOf(body.sorts),
        query: body.query,
        limit: body.limit ?? 10,
        after,
        properties: stored,
        indexedUntil: searchIndexedUntil(principal),
      });
      const next = after + rows.length;
      // `paging` is left out on the last page (a page past the end included).
      const paging = next < Math.min(total, MAX_TOTAL) ? `,"paging":{"next":{"after":"${next}"}}` : "";
      return jsonText(`{"total":${total},"results":[${rows.map((r) => recordText(r, system)).join(",")}]${paging}}`);
    },
  }),
];
