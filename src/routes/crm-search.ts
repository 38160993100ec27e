/** @module `POST /crm/v3/objects/{objectType}/search` (docs/reference/crm-v3.md "Search"). */
import type { z } from "zod";
import type { ObjectType } from "../db/tables/crm";
import { portalOf, requireScopes } from "../lib/auth";
import { json } from "../lib/http";
import { isoTime } from "../lib/iso";
import { route } from "../lib/route";
import * as crm from "../services/crm";
import { DEFAULT_PROPERTIES } from "../services/crm/properties";
import { searchObjects, MAX_TOTAL, type SearchInput } from "../services/crm/search";
import { typeParams } from "./crm-objects.schemas";
import type { searchResult } from "./crm-search.schemas";
import { searchBody, searchResponse } from "./crm-search.schemas";

/** The system properties every result carries, whatever `properties` asks for (as on the real service). */
const ALWAYS = ["hs_object_id", "createdate", "lastmodifieddate"];

/**
 * A result with the asked properties only (`names`, the system ones included); one the record does not
 * hold is null. Only those are looked up: the record's other properties are never copied.
 */
function result(row: crm.CrmRow, names: string[]): z.input<typeof searchResult> {
  const createdAt = isoTime(row.createdAt);
  const updatedAt = isoTime(row.updatedAt);
  const system: Record<string, string> = { hs_object_id: String(row.id), createdate: createdAt, lastmodifieddate: updatedAt, hs_lastmodifieddate: updatedAt };
  const properties: Record<string, string | null> = {};
  for (const n of names) properties[n] = Object.hasOwn(system, n) ? system[n]! : Object.hasOwn(row.properties, n) ? row.properties[n]! : null;
  return { id: String(row.id), properties, createdAt, updatedAt, archived: row.archived };
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
      const names = [...new Set([...(body.properties?.length ? body.properties : DEFAULT_PROPERTIES[type]), ...ALWAYS])];
      const out: z.input<typeof searchResponse> = { total, results: rows.map((r) => result(r, names)) };
      const next = after + rows.length;
      if (next < Math.min(total, MAX_TOTAL)) out.paging = { next: { after: String(next) } };
      return json(out);
    },
  }),
];
