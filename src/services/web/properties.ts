/**
 * @module What the web app needs to show and edit a type's records by their property definitions
 * (docs/reference/web.md "Record page", "Forms"): the definitions with their options as the properties API
 * lists them (owners, pipelines and stages are the account's own), the property groups, and the account's
 * currency and time zone. The writes of the forms go through the API's own checks and services, so a form
 * validates, emits webhooks and stays inside its account exactly as `POST /crm/v3/objects/{type}` does.
 */
import type { Db } from "../../db/client";
import type { ObjectType } from "../../db/tables/crm";
import { notFound } from "../../lib/errors";
import { listProperties, type PropertyDef } from "../crm/properties";
import { listGroups, type PropertyGroupDef } from "../crm/property-groups";
import { archiveObject, createObject, updateObject, type CrmRow } from "../crm/records";
import { checkRequired } from "../crm/object-types";
import { checkValues, liveOptionsOf, withOptions } from "../crm/values";
import { writeWithEvents, type WriteContext } from "../webhooks/write";

export interface AccountFormat {
  /** IANA time zone of the account: datetimes are shown and entered in it. */
  timeZone: string;
  /** ISO 4217 code of the account's currency: amounts without a currency of their own are in it. */
  currency: string;
}

export interface TypeProperties {
  defs: PropertyDef[];
  groups: PropertyGroupDef[];
  account: AccountFormat;
}

/** The type's definitions (with live options), its groups and the account's formats: three reads at once. */
export async function typeProperties(src: { db: Db; control: Db }, portalId: number, type: ObjectType): Promise<TypeProperties> {
  const [defs, groups, account] = await Promise.all([
    // The owners and pipelines are read beside the definitions, not after them: one round trip fewer.
    Promise.all([listProperties(src.db, portalId, type), liveOptionsOf(src, portalId, type)]).then(([d, options]) => withOptions(d, options)),
    listGroups(src.db, portalId, type),
    accountFormat(src.control, portalId),
  ]);
  return { defs, groups, account };
}

/** Constant text (see listGroups): the two columns a page formats with, not the whole account row. */
const ACCOUNT_FORMAT = `select time_zone, company_currency from accounts where portal_id = ?1`;

async function accountFormat(control: Db, portalId: number): Promise<AccountFormat> {
  const [row] = await control.$client.prepare(ACCOUNT_FORMAT).bind(portalId).raw<[string, string]>();
  if (!row) throw notFound(`Account ${portalId} not found`);
  return { timeZone: row[0], currency: row[1] };
}

/** System properties and calculated or file properties are not written by people: they are shown, not edited. */
const SYSTEM = new Set(["hs_object_id", "createdate", "lastmodifieddate", "hs_lastmodifieddate", "hs_createdate"]);
export const isReadOnly = (d: PropertyDef) => SYSTEM.has(d.name) || d.fieldType === "calculation_equation" || d.fieldType === "file" || (d.hubspotDefined && !d.formField);
/** What a form offers: visible properties people write. */
export const isEditable = (d: PropertyDef) => !d.hidden && !isReadOnly(d);

/**
 * Creates a record as `POST /crm/v3/objects/{type}` does: the custom type's required properties, the value
 * checks (options, owners, pipelines, unique values), then the write with its webhook events in one batch.
 * Changes made here are sent to subscribers with `changeSource` `CRM`, as the real service marks changes
 * made in its app.
 */
export async function createRecord(ctx: WriteContext, portalId: number, type: ObjectType, properties: Record<string, string>): Promise<CrmRow> {
  checkRequired(type, properties);
  await checkValues(ctx, portalId, type, [{ properties, at: "", create: true }]);
  return writeWithEvents(ctx, portalId, (outbox) => createObject(ctx.db, portalId, type, properties, ctx.now, [], outbox), "CRM");
}

/** Updates a record as `PATCH /crm/v3/objects/{type}/{id}` does (an empty value clears the property). */
export async function updateRecord(ctx: WriteContext, portalId: number, type: ObjectType, id: number, properties: Record<string, string>): Promise<CrmRow> {
  await checkValues(ctx, portalId, type, [{ properties, at: "", id }]);
  return writeWithEvents(ctx, portalId, (outbox) => updateObject(ctx.db, portalId, type, id, properties, ctx.now, outbox), "CRM");
}

/** Archives a record as `DELETE /crm/v3/objects/{type}/{id}` does. */
export async function archiveRecord(ctx: WriteContext, portalId: number, type: ObjectType, id: number): Promise<void> {
  await writeWithEvents(ctx, portalId, (outbox) => archiveObject(ctx.db, portalId, type, id, ctx.now, outbox), "CRM");
}
