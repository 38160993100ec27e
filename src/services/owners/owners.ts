/**
 * @module Owners (docs/reference/owners.md): an account's users as the CRM names them. Every user has one
 * owner row (src/db/tables/tenancy.ts `owners`), made with it; deleting the user archives the owner, and
 * records keep its id in `hubspot_owner_id`. Everything here reads the control plane.
 */
import { and, asc, eq, gt, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { MAX_BOUND } from "../../db/d1-raw";
import { owners, teams } from "../../db/tables/tenancy";
import { notFound } from "../../lib/errors";
import type { PublicOwner } from "../../schemas/owners";

export type OwnerRow = typeof owners.$inferSelect;

/** An account's teams are few (the operator makes them, at most MAX_TEAMS): read all of them at once. */
export const MAX_TEAMS = 500;

export async function teamNames(control: Db, portalId: number): Promise<Map<number, string>> {
  const rows = await control.select({ id: teams.teamId, name: teams.name }).from(teams).where(eq(teams.portalId, portalId)).limit(MAX_TEAMS).all();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The name the CRM shows for an owner: first and last name, or the email when it has none. */
export const ownerLabel = (o: Pick<OwnerRow, "firstName" | "lastName" | "email">) => [o.firstName, o.lastName].filter(Boolean).join(" ") || o.email;

/** PublicOwner of @hubspot/api-client: the primary team first; an archived owner has no userId any more. */
export function presentOwner(o: OwnerRow, names: Map<number, string>): PublicOwner {
  const ids = [...(o.primaryTeamId !== null ? [o.primaryTeamId] : []), ...o.secondaryTeamIds.filter((t) => t !== o.primaryTeamId)];
  const ownerTeams = o.archived ? [] : ids.filter((t) => names.has(t)).map((t) => ({ id: String(t), name: names.get(t)!, primary: t === o.primaryTeamId }));
  return {
    id: String(o.ownerId),
    email: o.email,
    type: "PERSON",
    firstName: o.firstName ?? "",
    lastName: o.lastName ?? "",
    ...(o.archived ? {} : { userId: o.userId }),
    userIdIncludingInactive: o.userId,
    createdAt: new Date(o.createdAt).toISOString(),
    updatedAt: new Date(o.updatedAt).toISOString(),
    archived: o.archived,
    ...(ownerTeams.length ? { teams: ownerTeams } : {}),
  };
}

/** A page of the account's owners by owner id, live or archived; `email` picks one. */
export async function listOwners(control: Db, portalId: number, q: { email?: string; after?: number; limit: number; archived: boolean }) {
  const rows = await control
    .select()
    .from(owners)
    .where(
      and(
        eq(owners.portalId, portalId),
        eq(owners.archived, q.archived),
        q.after !== undefined ? gt(owners.ownerId, q.after) : undefined,
        q.email !== undefined ? eq(owners.email, q.email.toLowerCase()) : undefined,
      ),
    )
    .orderBy(asc(owners.ownerId))
    .limit(q.limit + 1)
    .all();
  const page = rows.slice(0, q.limit);
  const names = page.length ? await teamNames(control, portalId) : new Map<number, string>();
  return { results: page.map((o) => presentOwner(o, names)), next: rows.length > q.limit ? String(page.at(-1)!.ownerId) : null };
}

/** One owner by owner id or by user id, among the live or the archived ones; another account's is a 404. */
export async function getOwner(control: Db, portalId: number, id: number, by: "id" | "userId", archived: boolean): Promise<PublicOwner> {
  const row = await control
    .select()
    .from(owners)
    .where(and(eq(owners.portalId, portalId), eq(owners.archived, archived), by === "id" ? eq(owners.ownerId, id) : eq(owners.userId, id)))
    .get();
  if (!row) throw notFound(`No ${archived ? "archived" : "live"} owner with ${by === "id" ? "id" : "userId"} ${id}`);
  return presentOwner(row, await teamNames(control, portalId));
}

/** The live owners of the account among `ids` (split by D1's bound-parameter limit). */
export async function liveOwners(control: Db, portalId: number, ids: number[]): Promise<OwnerRow[]> {
  const out: OwnerRow[] = [];
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += MAX_BOUND - 2) {
    const chunk = unique.slice(i, i + MAX_BOUND - 2);
    out.push(...(await control.select().from(owners).where(and(eq(owners.portalId, portalId), eq(owners.archived, false), inArray(owners.ownerId, chunk))).all()));
  }
  return out;
}

/** Names of the owners among `ids`, archived ones included (a record keeps naming an archived owner). */
export async function ownerNames(control: Db, portalId: number, ids: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += MAX_BOUND - 1) {
    const chunk = unique.slice(i, i + MAX_BOUND - 1);
    const rows = await control.select().from(owners).where(and(eq(owners.portalId, portalId), inArray(owners.ownerId, chunk))).all();
    for (const o of rows) out.set(o.ownerId, ownerLabel(o) + (o.archived ? " (deactivated)" : ""));
  }
  return out;
}

/** The properties API lists at most this many owners as `hubspot_owner_id`'s options. */
export const OWNER_OPTIONS_MAX = 1000;

/** The live owners as options of `hubspot_owner_id`: value the owner id, label the owner's name. */
export async function ownerOptions(control: Db, portalId: number) {
  const rows = await control.$client.prepare(OWNER_OPTIONS).bind(portalId, OWNER_OPTIONS_MAX).raw<[number, string, string | null, string | null]>();
  return rows.map(([ownerId, email, firstName, lastName], i) => ({ label: ownerLabel({ email, firstName, lastName }), value: String(ownerId), description: email, displayOrder: i, hidden: false }));
}

/** Constant text: every record page and form with an owner property reads it, and building it with drizzle's query builder cost more Worker CPU than D1 answering it. */
const OWNER_OPTIONS = `select owner_id, email, first_name, last_name from owners where portal_id = ?1 and archived = 0 order by owner_id limit ?2`;

