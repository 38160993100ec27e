/** @module `POST /crm/v3/objects/{objectType}/search` (docs/reference/crm-v3.md "Search"). */
import type { z } from "zod";
import type { ObjectType } from "../db/tables/crm";
import { portalOf, requireScopes } from "../lib/auth";
import { jsonText } from "../lib/http";
import { isoTime } from "../lib/iso";
import { route } from "../lib/route";
import * as crm from "../services/crm";
import { answeredProperties, systemPropertyValue } from "../services/crm/properties";
import { isColumnProperty, searchObjects, MAX_TOTAL, type SearchHit, type SearchInput } from "../services/crm/search";
import { typeParams } from "./crm-objects.schemas";
import { searchBody, searchResponse } from "./crm-search.schemas";

/**
 * A result as JSON text (the `searchResult` shape): the column-backed properties in `system`, then the
 * asked stored ones as D1 built them. The page is assembled as text, so 100 results are not parsed from
 * D1's JSON only to be serialised again.
 */
function resultText(hit: SearchHit, system: string[]): string {
  const createdAt = isoTime(hit.createdAt);
  const updatedAt = isoTime(hit.updatedAt);
  let properties = "";
  for (const name of system) {
    const value = systemPropertyValue(name, hit.id, createdAt, updatedAt);
    properties += `${properties ? "," : ""}${JSON.stringify(name)}:"${value}"`;
  }
  if (hit.propertyMembers) properties += `${properties ? "," : ""}${hit.propertyMembers}`;
  return `{"id":"${hit.id}","properties":{${properties}},"createdAt":"${createdAt}","updatedAt":"${updatedAt}","archived":${hit.archived}}`;
}

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
      const names = answeredProperties(type, body.properties);
      const system = names.filter(isColumnProperty);
      const { rows, total } = await searchObjects(db, portalOf(principal), type, {
        filterGroups: body.filterGroups ?? [],
        sort: sortOf(body.sorts),
        query: body.query,
        limit: body.limit ?? 10,
        after,
        properties: names.filter((n) => !isColumnProperty(n)),
      });
      const next = after + rows.length;
      // `paging` is left out on the last page (a page past the end included).
      const paging = next < Math.min(total, MAX_TOTAL) ? `,"paging":{"next":{"after":"${next}"}}` : "";
      return jsonText(`{"total":${total},"results":[${rows.map((r) => resultText(r, system)).join(",")}]${paging}}`);
    },
  }),
];
