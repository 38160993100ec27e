/**
 * @module The settings users API (docs/reference/users.md): the account's users, the very rows the operator
 * API makes and web sign-in reads (`users`), with the profile kept on each user's owner row (names, role,
 * teams; src/db/tables/tenancy.ts `owners`). Teams are made by the operator; roles are a fixed list.
 */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { owners, teams, users } from "../../db/tables/tenancy";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { ROLES, type ProvisionInput, type PublicUser, type UpdateInput } from "../../schemas/users";
import { createUser, requireWritableAccount } from "../accounts/tenancy";
import { deleteUser as deleteAccountUser } from "../accounts/credentials";
import { MAX_TEAMS } from "../owners/owners";

type OwnerRow = typeof owners.$inferSelect;
const ADMIN_ROLE = ROLES[0].id;

function presentUser(u: { userId: number; email: string }, o: OwnerRow | null): PublicUser {
  const roleId = o?.roleId ?? undefined;
  return {
    id: String(u.userId),
    email: u.email,
    ...(o?.firstName ? { firstName: o.firstName } : {}),
    ...(o?.lastName ? { lastName: o.lastName } : {}),
    ...(roleId ? { roleId } : {}),
    roleIds: roleId ? [roleId] : [],
    ...(o?.primaryTeamId != null ? { primaryTeamId: String(o.primaryTeamId) } : {}),
    secondaryTeamIds: (o?.secondaryTeamIds ?? []).map(String),
    superAdmin: roleId === ADMIN_ROLE,
  };
}

const joined = (control: Db) =>
  control.select({ userId: users.userId, email: users.email, owner: owners }).from(users).leftJoin(owners, eq(owners.userId, users.userId));

/** A page of the account's users by user id. */
export async function listUsers(control: Db, portalId: number, q: { limit: number; after?: number }) {
  const rows = await joined(control)
    .where(and(eq(users.portalId, portalId), q.after !== undefined ? gt(users.userId, q.after) : undefined))
    .orderBy(asc(users.userId))
    .limit(q.limit + 1)
    .all();
  const page = rows.slice(0, q.limit);
  return { results: page.map((r) => presentUser(r, r.owner)), next: rows.length > q.limit ? String(page.at(-1)!.userId) : null };
}

/**
 * The user `key` names (its id, or its email with idProperty EMAIL) in the caller's account. A user id
 * that is not a number is a 400 naming `userId`; an unknown user, or another account's, is a 404.
 */
async function findUser(control: Db, portalId: number, key: string, by: "USER_ID" | "EMAIL") {
  if (by === "USER_ID" && !/^\d{1,15}$/.test(key)) {
    const message = "userId must be a user id (a number), or an email with idProperty=EMAIL";
    throw badRequest(message, { errors: [{ message, code: "INVALID_FORMAT", in: "path", context: { propertyName: ["userId"] } }] });
  }
  const row = await joined(control)
    .where(and(eq(users.portalId, portalId), by === "USER_ID" ? eq(users.userId, Number(key)) : eq(users.email, key.toLowerCase())))
    .get();
  // The message does not repeat the key: an email of another account's user is not echoed back.
  if (!row) throw notFound(by === "USER_ID" ? `No user ${key} in this account` : "No user with that email in this account");
  return row;
}

export async function getUser(control: Db, portalId: number, key: string, by: "USER_ID" | "EMAIL"): Promise<PublicUser> {
  const row = await findUser(control, portalId, key, by);
  return presentUser(row, row.owner);
}

/** Teams named in a write must be the account's: another account's team id is as unknown as a made-up one. */
async function requireTeams(control: Db, portalId: number, input: { primaryTeamId?: number; secondaryTeamIds?: number[] }) {
  const wanted = [
    ...(input.primaryTeamId !== undefined ? [{ id: input.primaryTeamId, field: "primaryTeamId" }] : []),
    ...(input.secondaryTeamIds ?? []).map((id, i) => ({ id, field: `secondaryTeamIds.${i}` })),
  ];
  if (wanted.length === 0) return;
  const known = new Set((await control.select({ id: teams.teamId }).from(teams).where(eq(teams.portalId, portalId)).limit(MAX_TEAMS).all()).map((t) => t.id));
  const bad = wanted.filter((w) => !known.has(w.id));
  if (bad.length === 0) return;
  const errors = bad.map((b) => ({ message: `${b.field}: team ${b.id} is not a team of this account (GET /settings/v3/users/teams)`, code: "INVALID_OPTION", in: "body", context: { propertyName: [b.field] } }));
  throw badRequest(`Unknown team: ${bad.map((b) => b.field).join(", ")}`, { errors });
}

/** A user made through the settings API: without a password it cannot sign in until the operator sets one. */
export async function provisionUser(control: Db, portalId: number, input: ProvisionInput): Promise<PublicUser> {
  await requireTeams(control, portalId, input);
  const made = await createUser(control, portalId, {
    email: input.email,
    firstName: input.firstName,
    lastName: input.lastName,
    roleId: input.roleId,
    primaryTeamId: input.primaryTeamId,
    secondaryTeamIds: input.secondaryTeamIds,
  });
  return getUser(control, portalId, String(made.userId), "USER_ID");
}

/** Changes the given fields of the user's profile; the owner answers the same names and teams at once. */
export async function updateUser(control: Db, portalId: number, key: string, by: "USER_ID" | "EMAIL", input: UpdateInput, now: number): Promise<PublicUser> {
  await requireWritableAccount(control, portalId);
  const row = await findUser(control, portalId, key, by);
  await requireTeams(control, portalId, input);
  const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  await control
    .update(owners)
    .set({ ...set, updatedAt: now })
    .where(eq(owners.userId, row.userId));
  return getUser(control, portalId, String(row.userId), "USER_ID");
}

/** Removes the user as the operator's DELETE does: its sessions end and its owner is archived. */
export async function removeUser(control: Db, portalId: number, key: string, by: "USER_ID" | "EMAIL", now: number): Promise<void> {
  const row = await findUser(control, portalId, key, by);
  await deleteAccountUser(control, portalId, row.userId, now);
}

/** The account's teams with their members: primary members in `userIds`, the others in `secondaryUserIds`. */
export async function listTeams(control: Db, portalId: number) {
  const rows = await control.select().from(teams).where(eq(teams.portalId, portalId)).orderBy(asc(teams.teamId)).limit(MAX_TEAMS).all();
  if (rows.length === 0) return [];
  const members = await control
    .select({ userId: owners.userId, primary: owners.primaryTeamId, secondary: owners.secondaryTeamIds })
    .from(owners)
    .where(and(eq(owners.portalId, portalId), eq(owners.archived, false), sql`(${owners.primaryTeamId} is not null or ${owners.secondaryTeamIds} != '[]')`))
    .all();
  return rows.map((t) => ({
    id: String(t.teamId),
    name: t.name,
    userIds: members.filter((m) => m.primary === t.teamId).map((m) => String(m.userId)),
    secondaryUserIds: members.filter((m) => m.primary !== t.teamId && m.secondary.includes(t.teamId)).map((m) => String(m.userId)),
  }));
}

/** The operator makes a team: its name is unique in the account (409), at most MAX_TEAMS per account. */
export async function createTeam(control: Db, portalId: number, name: string) {
  await requireWritableAccount(control, portalId);
  const all = await control.select({ id: teams.teamId, name: teams.name }).from(teams).where(eq(teams.portalId, portalId)).limit(MAX_TEAMS).all();
  if (all.some((t) => t.name === name)) throw conflict(`A team named ${JSON.stringify(name)} already exists in account ${portalId}`);
  if (all.length >= MAX_TEAMS) throw conflict(`Account ${portalId} already has ${MAX_TEAMS} teams`);
  const row = await control.insert(teams).values({ portalId, name }).returning().get();
  return { teamId: row.teamId, name: row.name };
}

/** Deletes a team: its members leave it (as primary or secondary team) in the same batch. */
export async function deleteTeam(control: Db, portalId: number, teamId: number, now: number) {
  await requireWritableAccount(control, portalId);
  const team = await control.select().from(teams).where(and(eq(teams.portalId, portalId), eq(teams.teamId, teamId))).get();
  if (!team) throw notFound(`Team ${teamId} not found in account ${portalId}`);
  await control.batch([
    control
      .update(owners)
      .set({ primaryTeamId: null, updatedAt: now })
      .where(and(eq(owners.portalId, portalId), eq(owners.primaryTeamId, teamId))),
    control
      .update(owners)
      .set({
        secondaryTeamIds: sql`(select json_group_array(value) from json_each(${owners.secondaryTeamIds}) where value != ${teamId})`,
        updatedAt: now,
      })
      .where(and(eq(owners.portalId, portalId), sql`exists (select 1 from json_each(${owners.secondaryTeamIds}) where value = ${teamId})`)),
    control.delete(teams).where(eq(teams.teamId, teamId)),
  ]);
}
