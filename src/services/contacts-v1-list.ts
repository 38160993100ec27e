/**
 * @module `GET /contacts/v1/lists/all/contacts/all`'s storage (spec 2.1): a page of live contacts by vid
 * with the merges of each and only the asked properties, in ONE statement.
 */
import type { Db } from "../db/client";
import { isPropertyName } from "./crm/properties";
import { groupMerges, MERGE } from "./contacts-v1";

/** Properties a v1 list answers when the request names none (reference §2.1). */
export const LIST_DEFAULT_PROPERTIES = ["firstname", "lastname", "lastmodifieddate", "company"];

/** What a v1 list entry shows of a contact besides its properties. */
export interface ListContact {
  id: number;
  portalId: number;
  email: string | null;
  guid: string;
  createdAt: number;
  updatedAt: number;
}

/** A contact of the page and the stored value of each asked name, in the asked order (null: not held). */
export interface PageEntry {
  contact: ListContact;
  values: unknown[];
}

/** The properties every contact has, answered from its columns: the statement does not pick them. */
export const SYSTEM_PROPERTIES = ["createdate", "lastmodifieddate", "hs_object_id"] as const;
const SYSTEM = new Set<string>(SYSTEM_PROPERTIES);

/** A row of the page statement: the contact's columns, one of its merges (or null), then the picked values. */
type PageRow = [id: number, portalId: number, email: string | null, guid: string, createdAt: number, updatedAt: number, merge: string | null, ...values: unknown[]];
const MERGE_AT = 6;
const VALUES_AT = 7;

/**
 * The page statement for `names` (the asked properties, in order). The page is a CTE (the
 * crm_objects_list index, in id order, up to its LIMIT) left-joined to contact_merges on its
 * (portal_id, canonical_vid) index, so the list is one round trip rather than the page and then its
 * merges. The join is gated on the account having merges at all: most have none, and the join then skips a
 * contact_merges probe per contact. Each asked stored property is picked from the record's JSON by SQLite
 * (`json_extract`), so only those values leave D1 and the Worker parses no record's whole JSON: a page of
 * contacts holding 190 properties costs about a third more than one of contacts holding 4, where reading
 * whole records cost about three times as much (docs/reference/contacts-v1.md). A name no
 * write accepts (isPropertyName) is held by no contact and is answered null without asking D1; the
 * column-backed names are written from the columns.
 */
export function allContactsStatement(names: string[]): string {
  const picks = names.map((n) => (!SYSTEM.has(n) && isPropertyName(n) ? `json_extract(p.properties, '$."${n}"')` : "null"));
  return `with page as (
      select id, portal_id, email, guid, created_at, updated_at, properties from crm_objects
      where portal_id = ?1 and object_type = 'contacts' and archived = 0 and id > ?2
      order by id limit ?3)
    select p.id, p.portal_id, p.email, p.guid, p.created_at, p.updated_at, ${MERGE}${picks.map((x) => `, ${x}`).join("")}
    from page p left join contact_merges m
      on exists (select 1 from contact_merges where portal_id = ?1) and m.portal_id = p.portal_id and m.canonical_vid = p.id`;
}

/**
 * A page of `count` live contacts after vid `after` (count + 1 are read, for `has-more`), each with the
 * values of `names`, and their merges, oldest first. No ORDER BY on the join: sorting the joined rows cost
 * a temporary B-tree (about 0.2 ms a page); groupMerges puts the contacts in id order.
 */
export async function allContactsPage(db: Db, portalId: number, count: number, after: number, names: string[]) {
  const raw = await db.$client.prepare(allContactsStatement(names)).bind(portalId, after, count + 1).raw<PageRow>();
  const { entries, merges } = groupMerges(raw, MERGE_AT, (r): PageEntry => ({
    contact: { id: r[0], portalId: r[1], email: r[2], guid: r[3], createdAt: r[4], updatedAt: r[5] },
    values: r.slice(VALUES_AT),
  }));
  return { entries: entries.slice(0, count), hasMore: entries.length > count, merges };
}
