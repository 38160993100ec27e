/**
 * @module CRM records as the web app shows them (docs/reference/web.md): display names and labels, counts per
 * type, and the names of associated records (a list's page is services/web/lists.ts). Every query
 * is scoped by portalId and walks the `crm_objects_list` index (portal, type, archived, id).
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmObjects, isBuiltInType, isCustomType, type BuiltInObjectType, type CustomType, type ObjectType } from "../../db/tables/crm";
import { crmSchemas } from "../../db/tables/schemas";
import { ApiError } from "../../lib/errors";
import { customTypeInfo, customTypeKey, mayNameCustomType, rememberCustomType, resolveObjectType, SCHEMA_FACTS } from "../crm/object-types";
import { definitionsOf } from "../crm/properties";
import { inJson, type CrmRow } from "../crm/records";
import { ownerNames } from "../owners/owners";

/**
 * The record types with pages in the web app: those that show timelines (contacts, companies,
 * deals) and CRM cards (those and tickets).
 */
export const PAGE_TYPES = ["contacts", "companies", "deals", "tickets"] as const satisfies readonly ObjectType[];
export type PageType = (typeof PAGE_TYPES)[number];
export const isPageType = (s: string): s is PageType => (PAGE_TYPES as readonly string[]).includes(s);

/**
 * The record types with a record page: the list types, plus products and line items, which the store
 * overview and deals link to but which have no list, timeline or cards of their own.
 */
export const RECORD_TYPES = [...PAGE_TYPES, "products", "line_items"] as const satisfies readonly ObjectType[];
export type RecordType = (typeof RECORD_TYPES)[number];
export const isRecordType = (s: string): s is RecordType => (RECORD_TYPES as readonly string[]).includes(s);

/** The types with a list page: the built-in list types and the account's custom object types. */
export type ListType = PageType | CustomType;

/**
 * The custom object type a page path names (`2-<n>`, `p<portal>_<name>` or the bare name), as the API
 * resolves it; null when the account has no such live type (another account's is the same null).
 */
export async function customPageType(db: Db, portalId: number, raw: string): Promise<CustomType | null> {
  if (isBuiltInType(raw) || !mayNameCustomType(raw)) return null;
  try {
    return (await resolveObjectType(db, portalId, raw)) as CustomType;
  } catch (err) {
    if (err instanceof ApiError && err.category === "OBJECT_NOT_FOUND") return null;
    throw err;
  }
}

/** The account's live custom object types, oldest first, with their names remembered for display (one read). */
export async function accountCustomTypes(db: Db, portalId: number): Promise<CustomType[]> {
  const rows = await db
    .select(SCHEMA_FACTS)
    .from(crmSchemas)
    .where(and(eq(crmSchemas.portalId, portalId), isNull(crmSchemas.archivedAt)))
    .orderBy(asc(crmSchemas.id))
    .all();
  return rows.map(({ id, ...info }) => {
    rememberCustomType(customTypeKey(id), info);
    return customTypeKey(id);
  });
}

export const TYPE_LABEL: Record<BuiltInObjectType, { one: string; many: string }> = {
  contacts: { one: "Contact", many: "Contacts" },
  companies: { one: "Company", many: "Companies" },
  deals: { one: "Deal", many: "Deals" },
  tickets: { one: "Ticket", many: "Tickets" },
  products: { one: "Product", many: "Products" },
  line_items: { one: "Line item", many: "Line items" },
  notes: { one: "Note", many: "Notes" },
  tasks: { one: "Task", many: "Tasks" },
  calls: { one: "Call", many: "Calls" },
  meetings: { one: "Meeting", many: "Meetings" },
  emails: { one: "Email", many: "Emails" },
  communications: { one: "Communication", many: "Communications" },
  postal_mail: { one: "Postal mail", many: "Postal mail" },
  leads: { one: "Lead", many: "Leads" },
};

/** The property shown beside the name in lists. */
export const SUMMARY_PROPERTY: Record<PageType, { name: string; label: string }> = {
  contacts: { name: "email", label: "Email" },
  companies: { name: "domain", label: "Domain" },
  deals: { name: "amount", label: "Amount" },
  tickets: { name: "hs_pipeline_stage", label: "Stage" },
};

/** A type's names in the app: a custom type's come from its schema's labels. */
export function typeLabel(type: ObjectType): { one: string; many: string } {
  if (!isCustomType(type)) return TYPE_LABEL[type];
  const info = customTypeInfo(type);
  return { one: info.singular, many: info.plural };
}

/** The usual name properties of each type (v3 defaults). */
export function displayName(row: Pick<CrmRow, "id" | "objectType" | "properties">): string {
  const p = row.properties;
  const name = (() => {
    switch (row.objectType) {
      case "contacts":
        return [p.firstname, p.lastname].filter(Boolean).join(" ") || p.email;
      case "companies":
        return p.name || p.domain;
      case "deals":
        return p.dealname;
      case "tickets":
        return p.subject;
      default:
        // A custom record is known by its schema's primary display property.
        return isCustomType(row.objectType) ? p[customTypeInfo(row.objectType).primaryDisplayProperty ?? ""] : p.name;
    }
  })();
  return name?.trim() || `${typeLabel(row.objectType).one} #${row.id}`;
}

/** Records per page of a list. */
export const LIST_PAGE_SIZE = 25;

/** Live records per type for the start page, one grouped query. */
export async function recordCounts(db: Db, portalId: number): Promise<Partial<Record<ObjectType, number>>> {
  const rows = await db
    .select({ type: crmObjects.objectType, n: sql<number>`count(*)` })
    .from(crmObjects)
    .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.archived, false)))
    .groupBy(crmObjects.objectType)
    .all();
  return Object.fromEntries(rows.map((r) => [r.type, r.n]));
}

/** Associated records shown on a record page, per type; names come from one query over at most `max` ids. */
export async function namedRecords(db: Db, portalId: number, ids: number[], max = 100): Promise<Map<number, CrmRow>> {
  const wanted = ids.slice(0, max);
  if (wanted.length === 0) return new Map();
  const rows = await db
    .select()
    .from(crmObjects)
    .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.archived, false), inJson(crmObjects.id, wanted)))
    .all();
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The names of the owners the rows name in `hubspot_owner_id`, keyed by the value as stored: the pages show
 * a person, not an owner id. The owners live on the control plane; an archived one is still named.
 */
export async function ownersOf(control: Db, portalId: number, rows: Pick<CrmRow, "properties">[]): Promise<Map<string, string>> {
  const ids = rows.map((r) => r.properties.hubspot_owner_id ?? "").filter((v) => /^\d{1,15}$/.test(v));
  if (ids.length === 0) return new Map();
  const names = await ownerNames(control, portalId, ids.map(Number));
  return new Map([...names].map(([id, name]) => [String(id), name]));
}

/**
 * The column a custom type's list shows beside the name: its first searchable property other than the
 * primary display property, by its label (one read); none when it has no such property.
 */
export async function customSummary(db: Db, portalId: number, type: CustomType): Promise<{ name: string; label: string } | undefined> {
  const info = customTypeInfo(type);
  const name = info.searchableProperties.find((n) => n !== info.primaryDisplayProperty);
  if (!name) return undefined;
  const defs = await definitionsOf(db, portalId, type, [name]);
  return { name, label: defs.get(name)?.label ?? name };
}
