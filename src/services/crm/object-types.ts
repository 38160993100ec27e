/**
 * @module Which object type a path names. The built-in types are a closed list; every other type is one of
 * the account's custom object schemas (src/db/tables/schemas.ts), named as the real service accepts it: its
 * object type id `2-<n>`, its fully qualified name `p<portalId>_<name>`, or its bare name. Each is turned
 * into the stored key `2-<n>` once per request, by one indexed read, before the route's own validation; a
 * type of another account, or an archived one, is a 404. The built-in types cost no read.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { isBuiltInType, isCustomType, type CustomType, type ObjectType } from "../../db/tables/crm";
import { crmSchemas, type SchemaAssociation } from "../../db/tables/schemas";
import { badRequest, notFound } from "../../lib/errors";

/** What record code needs of a custom type beyond its key (default and searchable properties, names). */
export interface CustomTypeInfo {
  name: string;
  singular: string;
  plural: string;
  primaryDisplayProperty: string | null;
  requiredProperties: string[];
  searchableProperties: string[];
  /** The schema's association definitions: the type ids of its default associations (association-types.ts). */
  associations: SchemaAssociation[];
}

/**
 * The schema facts of the custom types resolved in this isolate, by key. Keys are unique across accounts
 * (schema ids come from each database's id range), and every request that names a custom type reads its
 * schema first (resolveObjectType), so a request always sees its type's current facts.
 */
const INFO = new Map<CustomType, CustomTypeInfo>();
const INFO_LIMIT = 1000;

export const customTypeKey = (id: number): CustomType => `2-${id}`;

/** The facts of a custom type resolved in this request; the bare defaults when it was not (never happens on a route). */
export const customTypeInfo = (type: CustomType): CustomTypeInfo =>
  INFO.get(type) ?? { name: type, singular: type, plural: type, primaryDisplayProperty: null, requiredProperties: [], searchableProperties: [], associations: [] };

export function rememberCustomType(type: CustomType, info: CustomTypeInfo) {
  if (INFO.size >= INFO_LIMIT && !INFO.has(type)) INFO.delete(INFO.keys().next().value!);
  INFO.set(type, info);
}

/** A path segment that could name a type (`2-<n>`, `p<portal>_<name>`, a name): an unknown one is a 404, as an unknown id. */
export const mayNameCustomType = (raw: string) => /^[A-Za-z0-9_-]{1,110}$/.test(raw);

/** The columns of a schema that make its CustomTypeInfo, with its id. */
export const SCHEMA_FACTS = {
  id: crmSchemas.id,
  name: crmSchemas.name,
  singular: crmSchemas.singular,
  plural: crmSchemas.plural,
  primaryDisplayProperty: crmSchemas.primaryDisplayProperty,
  requiredProperties: crmSchemas.requiredProperties,
  searchableProperties: crmSchemas.searchableProperties,
  associations: crmSchemas.associations,
};

/** The stored key of the type `raw` names in the account; 404 when no live schema of the account has it. */
export async function resolveObjectType(db: Db, portalId: number, raw: string): Promise<ObjectType> {
  if (isBuiltInType(raw)) return raw;
  const fqn = new RegExp(`^p${portalId}_(.+)$`).exec(raw);
  const where = isCustomType(raw) ? eq(crmSchemas.id, Number(raw.slice(2))) : eq(crmSchemas.name, fqn ? fqn[1]! : raw);
  const [row] = await db
    .select(SCHEMA_FACTS)
    .from(crmSchemas)
    .where(and(eq(crmSchemas.portalId, portalId), where, isNull(crmSchemas.archivedAt)))
    .limit(1);
  if (!row) throw notFound(`Unable to infer object type from: ${raw}`);
  const { id, ...info } = row;
  const key = customTypeKey(id);
  rememberCustomType(key, info);
  return key;
}

/** The path parameters that name an object type on the CRM routes. */
export const TYPE_PARAMS = ["objectType", "toObjectType", "fromObjectType"] as const;

/**
 * The path parameters with every custom type name replaced by its stored key (one read per distinct name).
 * Names that cannot be a type are left for the route's validation to reject.
 */
export async function resolveTypeParams(db: Db, portalId: number, params: Record<string, string>): Promise<Record<string, string>> {
  const out = { ...params };
  const seen = new Map<string, string>();
  for (const key of TYPE_PARAMS) {
    const raw = params[key];
    // `0-<n>` are the built-in types' ids, which the v4 routes take and turn into names themselves.
    if (raw === undefined || isBuiltInType(raw) || /^0-\d+$/.test(raw) || !mayNameCustomType(raw)) continue;
    if (!seen.has(raw)) seen.set(raw, await resolveObjectType(db, portalId, raw));
    out[key] = seen.get(raw)!;
  }
  return out;
}

/** A custom type's required properties must each have a value on create (400 naming the missing ones). */
export function checkRequired(type: ObjectType, properties: Record<string, string>, at = "") {
  if (!isCustomType(type)) return;
  const missing = customTypeInfo(type).requiredProperties.filter((name) => !properties[name]);
  if (missing.length) {
    throw badRequest(`Missing required properties of ${type}: ${missing.join(", ")}`, {
      errors: missing.map((name) => ({ message: `${name} is required`, in: "body", context: { propertyName: [`${at}properties.${name}`] } })),
    });
  }
}
