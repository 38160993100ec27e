/**
 * @module `GET /contacts/v1/lists/all/contacts/all`'s storage: a page of live contacts by vid
 * with the merges of each and only the asked properties, in ONE statement.
 */
import type { Db } from "../../db/client";
import { isPropertyName } from "../../schemas/crm/objects";
import { groupMerges, MERGE } from "./contacts";

/** Properties a v1 list answers when the request names none (the legacy service's defaults for `property`). */
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

/**
 * A contact of a list page as its list entry needs it: a row of the page statement, with the times and
 * the asked values already text (listEntriesText in src/routes/contacts-v1/present.ts writes them). The
 * Worker keeps the row as D1 answers it rather than copying it into an object per contact.
 */
export type EntryRow = [id: number, created: string, updated: string, email: string | null, guid: string, merge: string | null, ...values: (string | null)[]];
/** Where an EntryRow's merge (a MERGE tuple, or null) and its values (JSON; null or `null`: not held) are. */
const ENTRY_MERGE_AT = 5;
export const ENTRY_VALUES_AT = 6;

/** The properties every contact has, answered from its columns: the statement does not pick them. */
export const SYSTEM_PROPERTIES = ["createdate", "lastmodifieddate", "hs_object_id"] as const;
const SYSTEM = new Set<string>(SYSTEM_PROPERTIES);

/**
 * Whether the page statement picks `name` from the stored properties: the column-backed names are written
 * from the columns, and a name no write accepts (isPropertyName) is held by no contact, so neither is asked
 * of D1 (nor costs a column of nulls).
 */
export const isPicked = (name: string) => !SYSTEM.has(name) && isPropertyName(name);

/**
 * The page statement for `picked` (the asked names that isPicked, in order). The page is a CTE (the
 * crm_objects_list index, in id order, up to its LIMIT) left-joined to contact_merges on its
 * (portal_id, canonical_vid) index, so the list is one round trip rather than the page and then its
 * merges. The join is gated on the account having merges at all: most have none, and the join then skips a
 * contact_merges probe per contact. Each asked stored property is picked from the record's JSON by SQLite
 * as JSON (`->`), so only those values leave D1 and the Worker parses no record's whole JSON: a page of
 * contacts holding 190 properties costs about a third more than one of contacts holding 4, where reading
 * whole records cost about three times as much (docs/reference/contacts-v1.md).
 *
 * The statement answers what the entry needs and no more (the account is the caller's), with the times
 * as text: SQLite turns them into text for nothing, where the Worker pays a call each. `->` answers a
 * value as JSON, so the Worker writes it as it comes, and costs D1 less than `json_extract` (measured as
 * routes in the local D1: 0.03–0.08 ms a page over the every-column statement, against 0.07–0.14). What
 * crosses from D1 costs by its size: an extra column of 32-character text (the profile token) cost about
 * 0.1 ms a page, and `json_quote` on the email and guid as much, so the Worker quotes those itself.
 */
export function allContactsStatement(picked: string[], of: "after" | "ids" = "after"): string {
  const picks = picked.map((n) => `p.properties -> '$."${n}"'`);
  return `with page as (
      select id, portal_id, email, guid, created_at, updated_at, properties from crm_objects
      where portal_id = ?1 and object_type = 'contacts' and archived = 0 and ${of === "after" ? "id > ?2" : "id in (select value from json_each(?2))"}
      order by id limit ?3)
    select p.id, cast(p.created_at as text), cast(p.updated_at as text), p.email, p.guid, ${MERGE}${picks.map((x) => `, ${x}`).join("")}
    from page p left join contact_merges m
      on exists (select 1 from contact_merges where portal_id = ?1) and m.portal_id = p.portal_id and m.canonical_vid = p.id`;
}

/**
 * A page of `count` live contacts of account `portalId` after vid `after` (count + 1 are read, for
 * `has-more`), each as the row of its entry with the values of `picked`, and their merges, oldest first.
 * No ORDER BY on the join: sorting the joined rows cost a temporary B-tree (about 0.2 ms a page);
 * groupMerges puts the contacts in id order.
 */
export async function allContactsPage(db: Db, portalId: number, count: number, after: number, picked: string[]) {
  if (picked.some((n) => !isPicked(n))) throw new Error("allContactsPage: a name the statement cannot pick");
  const raw = await db.$client.prepare(allContactsStatement(picked)).bind(portalId, after, count + 1).raw<EntryRow>();
  const { entries, merges } = groupMerges(raw, portalId, ENTRY_MERGE_AT, (r) => r);
  return { entries: entries.slice(0, count), hasMore: entries.length > count, merges };
}

/** The entries of the live contacts among `ids` (a v1 list's page), as allContactsPage's, in vid order. */
export async function contactEntriesByIds(db: Db, portalId: number, ids: number[], picked: string[]) {
  if (picked.some((n) => !isPicked(n))) throw new Error("contactEntriesByIds: a name the statement cannot pick");
  const raw = await db.$client.prepare(allContactsStatement(picked, "ids")).bind(portalId, JSON.stringify(ids), ids.length).raw<EntryRow>();
  return groupMerges(raw, portalId, ENTRY_MERGE_AT, (r) => r);
}
