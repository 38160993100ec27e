/**
 * @module CRM card record types (docs/reference/cards.md "Record types"): storage, the 25-per-app limit and
 * the scope rule, plus the operator's change of an app's scopes, which must not strand existing cards. The
 * limit and the scope rule are checked inside the writing statement itself, so two concurrent requests
 * cannot both slip past.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../db/client";
import { CARD_OBJECT_TYPES, cardTypes, type CardObjectType } from "../../db/tables/cards";
import { apps } from "../../db/tables/tenancy";
import { ApiError, badRequest, conflict, notFound } from "../../lib/errors";
import { validate } from "../../lib/http";
import { checkOutboundUrl, OutboundError } from "../../lib/outbound";
import type { Definition } from "../../schemas/cards/types";

export type CardTypeRow = typeof cardTypes.$inferSelect;

/** At most 25 CRM card record types per application. */
export const MAX_CARD_TYPES_PER_APP = 25;

/** Contact, company and deal cards need the contacts scope; ticket cards need tickets. */
const CONTACTS_FAMILY = ["contacts", "crm.objects.contacts.read", "crm.objects.contacts.write"];
const SCOPE_NEED: Record<CardObjectType, { scope: "contacts" | "tickets"; satisfiedBy: string[] }> = {
  CONTACT: { scope: "contacts", satisfiedBy: CONTACTS_FAMILY },
  COMPANY: { scope: "contacts", satisfiedBy: CONTACTS_FAMILY },
  DEAL: { scope: "contacts", satisfiedBy: CONTACTS_FAMILY },
  TICKET: { scope: "tickets", satisfiedBy: ["tickets"] },
};

/** Whether a scope list lets a card appear on `type` records. */
export const scopesCover = (scopes: readonly string[], type: CardObjectType) => SCOPE_NEED[type].satisfiedBy.some((s) => scopes.includes(s));

const uncovered = (scopes: readonly string[], types: readonly CardObjectType[]) => types.filter((t) => !scopesCover(scopes, t));

function scopeError(missing: CardObjectType[]): ApiError {
  const needed = [...new Set(missing.map((t) => SCOPE_NEED[t].scope))];
  const message = `The app lacks the scope(s) ${needed.join(", ")} needed for cards on ${missing.join(", ")} records`;
  return badRequest(message, {
    errors: [{ message, code: "MISSING_SCOPES", in: "body", context: { propertyName: ["associatedHubSpotObjectTypes"], requiredScopes: needed } }],
  });
}

/** SQL: the app's stored scopes satisfy every type in `types` (SCOPE_NEED), evaluated in the writing statement. */
function appCoversSql(appId: number, types: readonly CardObjectType[]) {
  const groups = [...new Set(types.map((t) => SCOPE_NEED[t].satisfiedBy))];
  if (groups.length === 0) return sql`1`;
  return sql.join(
    groups.map(
      (group) =>
        sql`exists (select 1 from apps as a, json_each(a.scopes) as s where a.app_id = ${appId} and s.value in (select value from json_each(${JSON.stringify(group)})))`,
    ),
    sql` and `,
  );
}

/** A URI the service will call: the outbound guard's SSRF rules (src/lib/outbound.ts), no fragment. */
export const callable = (allowLoopback: boolean) =>
  z.string().superRefine((value, ctx) => {
    try {
      const url = checkOutboundUrl(value, allowLoopback);
      if (url.hash) ctx.addIssue({ code: "custom", message: "must not carry a #fragment (it is never sent)" });
    } catch (err) {
      ctx.addIssue({ code: "custom", message: err instanceof OutboundError ? err.message : "is not a valid URL" });
    }
  });

/** The environment-dependent URI checks (loopback is callable only under ALLOW_LOOPBACK_OUTBOUND). */
export function checkUris(def: Pick<Definition, "baseUris" | "dataFetchUri">, allowLoopback: boolean) {
  const { base, fetch } = uriRules(allowLoopback);
  validate(z.object({ baseUris: z.array(base), dataFetchUri: fetch }), def, "body");
}

/** The URI rules by role, for a face that names the fields its own way (cards v3). */
export function uriRules(allowLoopback: boolean) {
  return { base: callable(allowLoopback).refine((v) => !v.includes("?"), "a base URI must not carry a query string"), fetch: callable(allowLoopback) };
}

export function present(row: CardTypeRow) {
  return {
    id: row.id,
    applicationId: row.appId,
    baseUris: row.baseUris,
    dataFetchUri: row.dataFetchUri,
    title: row.title,
    propertyDefinitions: row.propertyDefinitions,
    associatedHubSpotObjectTypes: row.objectTypes,
    associatedHubSpotObjectTypeProperties: row.objectTypeProperties,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

async function appScopes(db: Db, appId: number): Promise<string[]> {
  const app = await db.select({ scopes: apps.scopes }).from(apps).where(eq(apps.appId, appId)).get();
  if (!app) throw notFound(`App ${appId} not found`);
  return app.scopes;
}

const countOf = async (db: Db, appId: number) =>
  (await db.select({ n: sql<number>`count(*)` }).from(cardTypes).where(eq(cardTypes.appId, appId)).get())?.n ?? 0;

const limitError = () =>
  new ApiError("API_LIMIT", `An application can define at most ${MAX_CARD_TYPES_PER_APP} CRM card record types`, {
    context: { limit: [String(MAX_CARD_TYPES_PER_APP)] },
  });

export async function createCardType(db: Db, appId: number, def: Definition, now: number): Promise<CardTypeRow> {
  // Readable errors first; the guarded insert below closes the race between these reads and the write.
  const missing = uncovered(await appScopes(db, appId), def.associatedHubSpotObjectTypes);
  if (missing.length) throw scopeError(missing);
  if ((await countOf(db, appId)) >= MAX_CARD_TYPES_PER_APP) throw limitError();

  const inserted = await db.get<{ id: number }>(sql`
    insert into card_types (app_id, title, base_uris, data_fetch_uri, property_definitions, object_types, object_type_properties, created_at, updated_at)
    select ${appId}, ${def.title}, ${JSON.stringify(def.baseUris)}, ${def.dataFetchUri}, ${JSON.stringify(def.propertyDefinitions)},
           ${JSON.stringify(def.associatedHubSpotObjectTypes)}, ${JSON.stringify(def.associatedHubSpotObjectTypeProperties)}, ${now}, ${now}
    where (select count(*) from card_types where app_id = ${appId}) < ${MAX_CARD_TYPES_PER_APP}
      and ${appCoversSql(appId, def.associatedHubSpotObjectTypes)}
    returning id`);
  if (!inserted) {
    const racedMissing = uncovered(await appScopes(db, appId), def.associatedHubSpotObjectTypes);
    throw racedMissing.length ? scopeError(racedMissing) : limitError();
  }
  return getCardType(db, appId, inserted.id);
}

export const listCardTypes = (db: Db, appId: number) =>
  db.select().from(cardTypes).where(eq(cardTypes.appId, appId)).orderBy(asc(cardTypes.id)).all();

/** Scoped by the developer key's app: another app's record type is simply not found. */
export async function getCardType(db: Db, appId: number, id: number): Promise<CardTypeRow> {
  const row = await db.select().from(cardTypes).where(and(eq(cardTypes.id, id), eq(cardTypes.appId, appId))).get();
  if (!row) throw notFound(`CRM card record type ${id} not found`);
  return row;
}

/** Replaces the definition (the route merged a PUT body into the stored one and validated the result). */
export async function updateCardType(db: Db, appId: number, id: number, merged: Definition, now: number) {
  const missing = uncovered(await appScopes(db, appId), merged.associatedHubSpotObjectTypes);
  if (missing.length) throw scopeError(missing);
  const row = await db
    .update(cardTypes)
    .set({
      baseUris: merged.baseUris,
      dataFetchUri: merged.dataFetchUri,
      title: merged.title,
      propertyDefinitions: merged.propertyDefinitions,
      objectTypes: merged.associatedHubSpotObjectTypes,
      objectTypeProperties: merged.associatedHubSpotObjectTypeProperties,
      updatedAt: now,
    })
    .where(and(eq(cardTypes.id, id), eq(cardTypes.appId, appId), appCoversSql(appId, merged.associatedHubSpotObjectTypes)))
    .returning()
    .get();
  if (row) return row;
  await getCardType(db, appId, id); // deleted meanwhile: 404
  throw scopeError(uncovered(await appScopes(db, appId), merged.associatedHubSpotObjectTypes));
}

export async function deleteCardType(db: Db, appId: number, id: number) {
  const gone = await db
    .delete(cardTypes)
    .where(and(eq(cardTypes.id, id), eq(cardTypes.appId, appId)))
    .returning({ id: cardTypes.id })
    .get();
  if (!gone) throw notFound(`CRM card record type ${id} not found`);
}

/**
 * Operator change of an app's scopes. A scope cannot be removed while cards exist for its object types;
 * the refusal is part of the UPDATE, so a card created meanwhile is still counted.
 */
export async function setAppScopes(db: Db, appId: number, scopes: string[], also: { refreshTokenRotation?: boolean } = {}) {
  const lost = CARD_OBJECT_TYPES.filter((t) => !scopesCover(scopes, t));
  const stranded = sql`exists (select 1 from card_types as c, json_each(c.object_types) as t
      where c.app_id = ${appId} and t.value in (select value from json_each(${JSON.stringify(lost)})))`;
  const row = await db
    .update(apps)
    .set({ scopes, ...also })
    .where(and(eq(apps.appId, appId), lost.length ? sql`not ${stranded}` : undefined))
    .returning({ appId: apps.appId, name: apps.name, scopes: apps.scopes, refreshTokenRotation: apps.refreshTokenRotation })
    .get();
  if (row) return row;
  await appScopes(db, appId); // unknown app: 404
  const blocking = (await listCardTypes(db, appId)).filter((c) => c.objectTypes.some((t) => lost.includes(t)));
  const needed = [...new Set(blocking.flatMap((c) => c.objectTypes.filter((t) => lost.includes(t)).map((t) => SCOPE_NEED[t].scope)))];
  throw conflict(
    `The scope(s) ${needed.join(", ")} cannot be removed while CRM cards use them: ${blocking.map((c) => `${c.id} "${c.title}"`).join(", ")}`,
    { context: { cardIds: blocking.map((c) => String(c.id)), requiredScopes: needed } },
  );
}
