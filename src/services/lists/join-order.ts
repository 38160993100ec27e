/**
 * @module A list's members in the order they joined (`GET /crm/v3/lists/{listId}/memberships/join-order`).
 * The cursor is the last member's join time and record id (`<ms>_<id>`): join times repeat (a batch adds many
 * records at one instant), so the id breaks ties and no member is skipped or answered twice across pages.
 * A DYNAMIC list's join time is when its member could last have joined (docs/reference/lists.md).
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawRows } from "../../db/d1-raw";
import { membersQuery, type MemberPage } from "./members";
import type { ListRow } from "./read";

export interface JoinCursor {
  at: number;
  id: number;
}
export const joinCursor = (m: { at: number; id: number }) => `${m.at}_${m.id}`;

export async function joinOrderPage(db: Db, list: ListRow, page: { after?: JoinCursor; before?: JoinCursor; limit: number; indexedUntil?: number }): Promise<Omit<MemberPage, "next" | "prev"> & { next?: string; prev?: string }> {
  const backwards = page.before !== undefined && page.after === undefined;
  const q = await membersQuery(db, list, [], page.indexedUntil);
  const bound = backwards ? page.before : page.after;
  const past = bound ? sql`and (${q.at} ${backwards ? sql`<` : sql`>`} ${bound.at} or (${q.at} = ${bound.at} and ${q.id} ${backwards ? sql`<` : sql`>`} ${bound.id}))` : sql``;
  const dir = backwards ? sql`desc` : sql`asc`;
  const rows = await rawRows<[number, number]>(db, sql`select ${q.id}, ${q.at} from ${q.from} where ${q.where} ${past} order by ${q.at} ${dir}, ${q.id} ${dir} limit ${page.limit + 1}`);
  const more = rows.length > page.limit;
  const members = rows.slice(0, page.limit).map(([id, at]) => ({ id, at }));
  if (backwards) members.reverse();
  const first = members[0];
  const last = members.at(-1);
  if (backwards) return { members, ...(last ? { next: joinCursor(last) } : {}), ...(more && first ? { prev: joinCursor(first) } : {}) };
  return { members, ...(more && last ? { next: joinCursor(last) } : {}), ...(page.after && first ? { prev: joinCursor(first) } : {}) };
}
