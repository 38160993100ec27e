/**
 * @module Property groups of `/crm/v3/properties/{objectType}/groups`: the built-in group of each object type
 * (not stored; the group its built-in properties sit in) and an account's custom ones (`crm_property_groups`).
 * Every property names an existing group (docs/reference/crm.md "Property groups").
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmProperties, crmPropertyGroups, type ObjectType } from "../../db/tables/crm";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { defaultGroupOf } from "./properties";

export interface PropertyGroupDef {
  name: string;
  label: string;
  displayOrder: number;
  builtIn: boolean;
}

const builtInGroup = (type: ObjectType): PropertyGroupDef => ({
  name: defaultGroupOf(type),
  label: defaultGroupOf(type).replace(/information$/, " information").replace(/^./, (c) => c.toUpperCase()).replace(/_/g, " "),
  displayOrder: -1,
  builtIn: true,
});

const fromRow = (r: typeof crmPropertyGroups.$inferSelect): PropertyGroupDef => ({ name: r.name, label: r.label, displayOrder: r.displayOrder, builtIn: false });

const where = (portalId: number, type: ObjectType, name?: string) =>
  and(eq(crmPropertyGroups.portalId, portalId), eq(crmPropertyGroups.objectType, type), name === undefined ? undefined : eq(crmPropertyGroups.name, name));

const builtInError = (type: ObjectType, name: string) =>
  badRequest(`Property group ${name} of ${type} is built in and cannot be changed or archived`, { errors: [{ message: "built-in property group", in: "path", context: { groupName: [name] } }] });

/** The built-in group first, then the account's custom ones by display order and name (one query). */
export async function listGroups(db: Db, portalId: number, type: ObjectType): Promise<PropertyGroupDef[]> {
  const rows = await db.$client.prepare(LIST_GROUPS).bind(portalId, type).raw<[string, string, number]>();
  return [builtInGroup(type), ...rows.map(([name, label, displayOrder]) => ({ name, label, displayOrder, builtIn: false }))];
}

/** Constant text: every record page and form reads it, and building it with drizzle's query builder cost more Worker CPU than D1 answering it. */
const LIST_GROUPS = `select name, label, display_order from crm_property_groups where portal_id = ?1 and object_type = ?2 order by display_order, name`;

export async function getGroup(db: Db, portalId: number, type: ObjectType, name: string): Promise<PropertyGroupDef> {
  if (name === defaultGroupOf(type)) return builtInGroup(type);
  const row = await db.select().from(crmPropertyGroups).where(where(portalId, type, name)).get();
  if (!row) throw notFound(`Property group ${name} does not exist on ${type}`);
  return fromRow(row);
}

export interface GroupInput {
  name: string;
  label: string;
  displayOrder?: number;
}

export async function createGroup(db: Db, portalId: number, type: ObjectType, input: GroupInput, now: number): Promise<PropertyGroupDef> {
  if (input.name === defaultGroupOf(type)) throw conflict(`Property group ${input.name} already exists on ${type} (built in)`);
  const row = await db
    .insert(crmPropertyGroups)
    .values({ portalId, objectType: type, name: input.name, label: input.label, displayOrder: input.displayOrder ?? -1, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning()
    .get();
  if (!row) throw conflict(`Property group ${input.name} already exists on ${type}`);
  return fromRow(row);
}

export async function updateGroup(db: Db, portalId: number, type: ObjectType, name: string, patch: Partial<Omit<GroupInput, "name">>, now: number): Promise<PropertyGroupDef> {
  if (name === defaultGroupOf(type)) throw builtInError(type, name);
  const row = await db
    .update(crmPropertyGroups)
    .set({ ...(patch.label !== undefined ? { label: patch.label } : {}), ...(patch.displayOrder !== undefined ? { displayOrder: patch.displayOrder } : {}), updatedAt: now })
    .where(where(portalId, type, name))
    .returning()
    .get();
  if (!row) throw notFound(`Property group ${name} does not exist on ${type}`);
  return fromRow(row);
}

/**
 * Archives a custom group. While custom properties still sit in it the archive is refused (400 naming the
 * group and the properties) rather than moving them: a property never points at a missing group, and no
 * property changes group without being asked. The delete itself re-checks in the same statement, so a
 * property added to the group meanwhile still blocks it.
 */
export async function archiveGroup(db: Db, portalId: number, type: ObjectType, name: string): Promise<void> {
  if (name === defaultGroupOf(type)) throw builtInError(type, name);
  const members = await db
    .select({ name: crmProperties.name })
    .from(crmProperties)
    .where(and(eq(crmProperties.portalId, portalId), eq(crmProperties.objectType, type), eq(crmProperties.groupName, name)))
    .limit(10)
    .all();
  if (members.length > 0) {
    const names = members.map((m) => m.name);
    throw badRequest(`Property group ${name} of ${type} still holds properties (${names.join(", ")}); move or archive them first`, {
      errors: [{ message: "property group not empty", in: "path", context: { groupName: [name], propertyName: names } }],
    });
  }
  const empty = sql`not exists (select 1 from crm_properties p where p.portal_id = ${portalId} and p.object_type = ${type} and p.group_name = ${name})`;
  const gone = await db.delete(crmPropertyGroups).where(and(where(portalId, type, name), empty)).returning({ name: crmPropertyGroups.name }).get();
  if (!gone) await getGroup(db, portalId, type, name).then(() => { throw badRequest(`Property group ${name} of ${type} still holds properties`); });
}
