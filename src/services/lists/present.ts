/** @module Lists as the v3 API answers them (the client's PublicObjectList) and as the legacy v1 face does. */
import { typeIdOf } from "../../schemas/crm/associations-v4";
import type { ObjectType } from "../../db/tables/crm";
import type { ListRow } from "./read";
import type { MemberPage } from "./members";

const iso = (ms: number) => new Date(ms).toISOString();

export function presentList(row: ListRow, opts: { includeFilters?: boolean; size?: number } = {}) {
  return {
    listId: String(row.id),
    listVersion: row.version,
    name: row.name,
    objectTypeId: typeIdOf(row.objectType as ObjectType),
    processingType: row.processingType,
    // Lists are evaluated when read (DYNAMIC) or written whole (MANUAL, SNAPSHOT): never still processing.
    processingStatus: "COMPLETE",
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    filtersUpdatedAt: iso(row.filtersUpdatedAt),
    ...(row.deletedAt !== null ? { deletedAt: iso(row.deletedAt) } : {}),
    ...(opts.size !== undefined ? { size: opts.size } : {}),
    ...(opts.includeFilters && row.filterBranch ? { filterBranch: row.filterBranch } : {}),
  };
}

/** The v1 list: static lists are the MANUAL and SNAPSHOT ones. */
export function presentV1List(row: ListRow, size?: number) {
  return {
    listId: row.id,
    name: row.name,
    portalId: row.portalId,
    dynamic: row.processingType === "DYNAMIC",
    listType: row.processingType === "DYNAMIC" ? "DYNAMIC" : "STATIC",
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    deleteable: true,
    archived: false,
    internal: false,
    metaData: { processing: "DONE", ...(size !== undefined ? { size } : {}), error: "", lastProcessingStateChangeAt: row.updatedAt, lastSizeChangeAt: row.updatedAt },
    filters: [],
  };
}

/**
 * A page of members as the v3 API answers it (`{"results":[{"recordId","membershipTimestamp"}],"paging"}`),
 * written as JSON text: ids are integers and timestamps ISO strings, so nothing needs escaping. Members
 * often share a timestamp (a DYNAMIC list's filter change, a batch added at one instant): each distinct one
 * is formatted once.
 */
export function memberPageText(page: MemberPage): string {
  let lastAt = NaN;
  let lastIso = "";
  const results = page.members.map((m) => {
    if (m.at !== lastAt) {
      lastAt = m.at;
      lastIso = iso(m.at);
    }
    return `{"recordId":"${m.id}","membershipTimestamp":"${lastIso}"}`;
  });
  const paging = [...(page.next !== undefined ? [`"next":{"after":"${page.next}"}`] : []), ...(page.prev !== undefined ? [`"prev":{"before":"${page.prev}"}`] : [])];
  return `{"results":[${results.join(",")}]${paging.length ? `,"paging":{${paging.join(",")}}` : ""}}`;
}
