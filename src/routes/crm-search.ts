/** @module `POST /crm/v3/objects/{objectType}/search` (docs/reference/crm-v3.md "Search"). */
import type { z } from "zod";
import type { ObjectType } from "../db/tables/crm";
import { portalOf, requireScopes } from "../lib/auth";
import { json } from "../lib/http";
import { route } from "../lib/route";
import * as crm from "../services/crm";
import { DEFAULT_PROPERTIES } from "../services/crm/properties";
import { searchObjects, MAX_TOTAL, type SearchInput } from "../services/crm/search";
import { typeParams } from "./crm-objects.schemas";
import { present } from "./crm-objects";
import type { searchResult } from "./crm-search.schemas";
import { searchBody, searchResponse } from "./crm-search.schemas";

/** The system properties every result carries, whatever `properties` asks for (as on the real service). */
const ALWAYS = ["hs_object_id", "createdate", "lastmodifieddate"];

/** A result with the asked properties only; one the record does not hold is null. */
function result(row: crm.CrmRow, names: string[]): z.input<typeof searchResult> {
  const full = present(row) as Omit<z.input<typeof searchResult>, "properties"> & { properties: Record<string, string> };
  const all: Record<string, string> = { ...full.properties, hs_lastmodifieddate: full.properties.lastmodifieddate! };
  const properties = Object.fromEntries([...new Set([...names, ...ALWAYS])].map((n) => [n, all[n] ?? null]));
  return { ...full, properties };
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
      const { rows, total } = await searchObjects(db, portalOf(principal), type, {
        filterGroups: body.filterGroups ?? [],
        sort: sortOf(body.sorts),
        query: body.query,
        limit: body.limit ?? 10,
        after,
      });
      const names = body.properties?.length ? body.properties : DEFAULT_PROPERTIES[type];
      const out: z.input<typeof searchResponse> = { total, results: rows.map((r) => result(r, names)) };
      const next = after + rows.length;
      if (next < Math.min(total, MAX_TOTAL)) out.paging = { next: { after: String(next) } };
      return json(out);
    },
  }),
];
