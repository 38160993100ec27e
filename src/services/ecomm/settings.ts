/**
 * @module Ecommerce settings (docs/reference/ecomm.md "Settings"). Two owners: an app (developer key +
 * appId) and an account (its own token). Which settings govern a sync is decided when the consumer
 * processes it (`governingSettings`): a sync sent with an OAuth access token uses its app's settings when
 * the app has any, otherwise the token's account's (the settings API takes no appId "when building for a
 * single account"); a sync sent with a private-app token uses the account's.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ecommSettings, type Mappings } from "../../db/tables/ecomm";
import { requireOwnApp } from "../../lib/principal";
import { ApiError, badRequest, notFound } from "../../lib/errors";
import { checkOutboundUrl, OutboundError } from "../../lib/outbound";
import type { Principal } from "../../lib/principal";
import type { SettingsInput } from "../../schemas/ecomm";

export interface SettingsOwner {
  kind: "app" | "portal";
  id: number;
}

export type SettingsRow = typeof ecommSettings.$inferSelect;

/**
 * Which settings a settings request acts on. A developer key needs `?appId=` of its own app. An account
 * token acts on its account's settings (which govern the token's syncs unless its app has settings, see
 * `governingSettings`); an OAuth token may read (never change) its own app's settings with `?appId=`,
 * because app settings are shared by every account the app is installed in.
 */
export function settingsOwnerFor(principal: Principal, appId: number | undefined, write: boolean): SettingsOwner {
  switch (principal.kind) {
    case "developer":
      if (appId === undefined) throw badRequest("The appId query parameter is required with a developer key", { errors: [{ message: "appId is required", in: "query", context: { propertyName: ["appId"] } }] });
      requireOwnApp(principal, appId);
      return { kind: "app", id: appId };
    case "oauth":
      if (appId === undefined) return { kind: "portal", id: principal.portalId };
      requireOwnApp(principal, appId);
      if (write) throw new ApiError("FORBIDDEN", "App-level settings are changed with the app's developer key.");
      return { kind: "app", id: appId };
    case "private_app":
      if (appId !== undefined) throw notFound(`App ${appId} not found`);
      return { kind: "portal", id: principal.portalId };
    default:
      throw new ApiError("FORBIDDEN", "This endpoint requires a developer key or an account token.");
  }
}

/**
 * Where an owner's settings live: an app's in the control plane (they govern every install),
 * an account's on the account's shard.
 */
export const settingsDb = (owner: SettingsOwner, accountDb: Db, control: Db): Db => (owner.kind === "app" ? control : accountDb);

/** The key of an owner's row in a map of settings rows (`${ownerKind}:${ownerId}`). */
export const settingsKey = (owner: SettingsOwner) => `${owner.kind}:${owner.id}`;

/**
 * The owners whose settings may govern a sync message, in precedence order: the app's (app-level, set
 * with the developer key) before the account's (account-level). A private-app message (appId null) has
 * only the account. The consumer reads every candidate in its one settings query.
 */
export const syncSettingsOwners = (portalId: number, appId: number | null): SettingsOwner[] =>
  appId === null ? [{ kind: "portal", id: portalId }] : [{ kind: "app", id: appId }, { kind: "portal", id: portalId }];

/**
 * The settings that govern a sync message: those of the first candidate owner that has settings at all.
 * Existence decides, not `enabled`: an app's disabled settings pause its syncs in every account (they do
 * not fall through to an account's). Undefined when no candidate has settings (NO_SYNC_SETTINGS).
 */
export function governingSettings(rows: ReadonlyMap<string, SettingsRow>, portalId: number, appId: number | null): SettingsRow | undefined {
  for (const owner of syncSettingsOwners(portalId, appId)) {
    const row = rows.get(settingsKey(owner));
    if (row) return row;
  }
  return undefined;
}

export const getSettings = (db: Db, owner: SettingsOwner) =>
  db
    .select()
    .from(ecommSettings)
    .where(and(eq(ecommSettings.ownerKind, owner.kind), eq(ecommSettings.ownerId, owner.id)))
    .get();

export async function requireSettings(db: Db, owner: SettingsOwner): Promise<SettingsRow> {
  const row = await getSettings(db, owner);
  if (!row) throw notFound(owner.kind === "app" ? `No ecommerce settings for app ${owner.id}` : "No ecommerce settings for this account");
  return row;
}

/**
 * The webhook is an outbound SSRF surface (docs/explanation/reliability.md "SSRF on Workers"): refuse what
 * the guard would refuse, now.
 */
function checkWebhookUri(uri: string, allowLoopback: boolean) {
  try {
    checkOutboundUrl(uri, allowLoopback);
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    throw badRequest(`Invalid body: webhookUri: ${err.message}`, {
      errors: [{ message: `webhookUri: ${err.message}`, code: "INVALID_URI", in: "body", context: { propertyName: ["webhookUri"] } }],
    });
  }
}

/** A PUT replaces everything: object types left out lose their mappings, as in the real service. */
export async function putSettings(db: Db, owner: SettingsOwner, input: SettingsInput, allowLoopback: boolean, now: number) {
  if (input.webhookUri) checkWebhookUri(input.webhookUri, allowLoopback);
  const values = {
    ownerKind: owner.kind,
    ownerId: owner.id,
    enabled: input.enabled,
    webhookUri: input.webhookUri ?? null,
    mappings: input.mappings as Mappings,
    updatedAt: now,
  };
  const row = await db
    .insert(ecommSettings)
    .values(values)
    .onConflictDoUpdate({
      target: [ecommSettings.ownerKind, ecommSettings.ownerId],
      set: { enabled: values.enabled, webhookUri: values.webhookUri, mappings: values.mappings, updatedAt: now },
    })
    .returning()
    .get();
  return row;
}

export async function deleteSettings(db: Db, owner: SettingsOwner) {
  const gone = await db
    .delete(ecommSettings)
    .where(and(eq(ecommSettings.ownerKind, owner.kind), eq(ecommSettings.ownerId, owner.id)))
    .returning({ id: ecommSettings.ownerId })
    .all();
  if (!gone.length) throw notFound(owner.kind === "app" ? `No ecommerce settings for app ${owner.id}` : "No ecommerce settings for this account");
}

/** The stored settings as clients read them (servicePropertyName, never the legacy key). */
export const presentSettings = (row: SettingsRow) => ({
  enabled: row.enabled,
  webhookUri: row.webhookUri,
  mappings: row.mappings,
});
