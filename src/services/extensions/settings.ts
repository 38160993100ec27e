/**
 * @module App extension settings (docs/reference/extensions.md): one JSON document per app and kind in the control
 * plane. Every URL the service would call passes the outbound guard when it is stored, as CRM card URLs do.
 */
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../db/client";
import { extensionSettings, type ExtensionKind } from "../../db/tables/extensions";
import { conflict, notFound } from "../../lib/errors";
import { validate } from "../../lib/http";
import { callable } from "../cards/types";
import { URL_FIELDS } from "../../schemas/extensions";

type Doc = Record<string, unknown>;
export type SettingsRow = typeof extensionSettings.$inferSelect;

const LABEL: Record<ExtensionKind, string> = {
  videoconferencing: "video conferencing settings",
  calling: "calling settings",
  "calling-recording": "calling recording settings",
  "calling-channel-connection": "calling channel connection settings",
};

/**
 * Defaults of the calling settings the client's SettingsResponse requires but SettingsRequest leaves out: the
 * real service's defaults for a new calling extension (ready, opened in the calling window, no inbound calling
 * or custom objects) and a 400×600 frame.
 */
export const CALLING_DEFAULTS = {
  width: 400,
  height: 600,
  isReady: true,
  supportsCustomObjects: false,
  supportsInboundCalling: false,
  usesCallingWindow: true,
  usesRemote: true,
};

/** The document's URL fields pass the outbound guard (https, or loopback under ALLOW_LOOPBACK_OUTBOUND); a 400 names the field. */
export function checkUrls(kind: ExtensionKind, doc: Doc, allowLoopback: boolean): void {
  const shape = Object.fromEntries(URL_FIELDS[kind].map((f) => [f, callable(allowLoopback).optional()]));
  validate(z.object(shape), doc, "body");
}

const where = (appId: number, kind: ExtensionKind) => and(eq(extensionSettings.appId, appId), eq(extensionSettings.kind, kind));

export async function getSettings(db: Db, appId: number, kind: ExtensionKind): Promise<SettingsRow> {
  const row = await db.select().from(extensionSettings).where(where(appId, kind)).get();
  if (!row) throw notFound(`App ${appId} has no ${LABEL[kind]}`);
  return row;
}

/** Creates the document; the app already having one is a 409 (PATCH changes it). One conditional insert, so two creates at once make one. */
export async function createSettings(db: Db, appId: number, kind: ExtensionKind, doc: Doc, now: number): Promise<SettingsRow> {
  const row = await db.insert(extensionSettings).values({ appId, kind, document: doc, createdAt: now, updatedAt: now }).onConflictDoNothing().returning().get();
  if (!row) throw conflict(`App ${appId} already has ${LABEL[kind]}; update them with PATCH`);
  return row;
}

/** Creates or replaces the whole document (video conferencing's PUT). */
export async function putSettings(db: Db, appId: number, kind: ExtensionKind, doc: Doc, now: number): Promise<SettingsRow> {
  return db
    .insert(extensionSettings)
    .values({ appId, kind, document: doc, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: [extensionSettings.appId, extensionSettings.kind], set: { document: doc, updatedAt: now } })
    .returning()
    .get();
}

/** Merges the given fields into the stored document; `check` sees the result before it is written. */
export async function patchSettings(db: Db, appId: number, kind: ExtensionKind, patch: Doc, now: number, check: (doc: Doc) => void): Promise<SettingsRow> {
  const current = await getSettings(db, appId, kind);
  const doc = { ...current.document, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
  check(doc);
  // Last writer wins, as for webhook settings: the document is small and replaced whole.
  const row = await db.update(extensionSettings).set({ document: doc, updatedAt: now }).where(where(appId, kind)).returning().get();
  if (!row) throw notFound(`App ${appId} has no ${LABEL[kind]}`);
  return row;
}

export async function deleteSettings(db: Db, appId: number, kind: ExtensionKind): Promise<void> {
  const res = await db.delete(extensionSettings).where(where(appId, kind)).run();
  if (!res.meta.changes) throw notFound(`App ${appId} has no ${LABEL[kind]}`);
}

const iso = (ms: number) => new Date(ms).toISOString();

export const presentCalling = (row: SettingsRow) => ({ ...CALLING_DEFAULTS, ...row.document, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) });
export const presentChannel = (row: SettingsRow) => ({ ...row.document, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) });
/** RecordingSettingsResponse and ExternalSettings have no timestamps. */
export const presentPlain = (row: SettingsRow) => ({ ...row.document });
