/**
 * Arguments for each call of test/node/client-calls.ts, built from what the package says about the call (its
 * parameter names, the ObjectSerializer type of its body, and the model classes' `attributeTypeMap` with the
 * required fields of their declarations) and from records made for the meter. A short table of hand-made
 * values covers what a schema cannot say: which association type joins a contact to a company, which
 * property identifies a record in an upsert, which tokens a timeline event of the seeded template takes.
 *
 * A value the meter cannot make (no list, import or owner exists to name, because nothing can create one here)
 * becomes a placeholder, and the call is still made; the note says which input was missing.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { ClientCall } from "./client-calls";

const require = createRequire(import.meta.url);

/** What the meter set up for the calls to use (test/node/client-coverage.test.ts makes them). */
export interface Fixtures {
  appId: number;
  userId: number;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  /** A refresh token of another install, for the call that revokes one. */
  spareRefreshToken: string;
  targetUrl: string;
  /** A record of the type; `fresh` makes one for this call alone (for calls that destroy it). */
  record(type: string, fresh: boolean): Promise<string>;
  /** Two records of the type joined by the default association, for the call that removes it. */
  associatedPair(from: string, to: string): Promise<[string, string]>;
  property(fresh: boolean): Promise<string>;
  propertyGroup(fresh: boolean): Promise<string>;
  /** A custom property of the type with `hasUniqueValue` (what an upsert's idProperty names). */
  uniqueProperty(type: string): Promise<string>;
  template(fresh: boolean): Promise<string>;
  /** A token of the seeded template. */
  templateToken(fresh: boolean): Promise<string>;
  /** An event of the seeded template: its id. */
  event(): Promise<string>;
  card(fresh: boolean): Promise<string>;
  subscription(fresh: boolean): Promise<string>;
  /** The owner id of the meter's user. */
  owner(): Promise<string>;
  /** A deal pipeline of the meter's account with two stages; `fresh` makes one for this call alone. */
  pipeline(fresh: boolean): Promise<{ id: string; stageId: string }>;
  /** A USER_DEFINED contact → company association label of the meter's account: its type id. */
  associationLabel(fresh: boolean): Promise<number>;
  /** A MANUAL contact list of the meter's account holding one contact; `fresh` makes one for this call alone. */
  list(fresh: boolean): Promise<{ listId: string; name: string }>;
  /** A list made and archived for this call alone (the call that restores one). */
  archivedList(): Promise<string>;
  /** A list folder made for this call alone: its id. */
  listFolder(): Promise<string>;
  /** A custom object schema of the meter's account: its object type id (`2-<n>`). */
  schema(fresh: boolean): Promise<string>;
  /** An association definition of a schema made for this call alone: the schema's type id and the definition's id. */
  schemaAssociation(): Promise<{ objectType: string; associationId: string }>;
}

/** The arguments of one call and what could not be made for it. */
export interface CallInput {
  args: unknown[];
  notes: string[];
}

let seq = 0;
export const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(seq++).toString(36)}`;

/** Calls that destroy what they name get records made for them alone; they run after the others. */
export const destroys = (c: ClientCall) => c.httpMethod === "DELETE" || /archive|remove|purge|merge|clear|gdpr|cancel/i.test(`${c.method} ${c.path}`);

/** The record type a call is about: the literal after `/objects/`, else the value of its object type parameter. */
function recordType(call: ClientCall): string | undefined {
  const literal = call.path.match(/\/objects\/([a-z_]+)(?:\/|$)/)?.[1];
  if (literal) return literal;
  if (call.params.some((p) => p.wire === "objectTypeId")) return "contacts";
  return call.params.some((p) => /^(objectType|fromObjectType)$/.test(p.wire)) ? defaultType(call) : undefined;
}

/** The object type a call's `{objectType}` takes: one the Worker stores, where the family allows a choice. */
function defaultType(call: ClientCall): string {
  if (call.family === "crm/pipelines") return "deals";
  return "contacts";
}

/** Properties a new record of the type is valid with (the type's name property, a unique email for contacts). */
export function propertiesFor(type: string | undefined): Record<string, string> {
  const now = new Date().toISOString();
  switch (type) {
    case "contacts":
      return { email: `${unique("meter")}@meter.example`, firstname: "Meter" };
    case "companies":
      return { name: "Meter Inc", domain: `${unique("meter")}.example` };
    case "deals":
      return { dealname: "Meter deal", amount: "10" };
    case "products":
      return { name: "Meter product", price: "10" };
    case "line_items":
      return { name: "Meter line", quantity: "1", price: "10" };
    case "tickets":
      return { subject: "Meter ticket", hs_pipeline: "0", hs_pipeline_stage: "1" };
    case "quotes":
      return { hs_title: "Meter quote", hs_expiration_date: now };
    case "notes":
      return { hs_note_body: "Meter", hs_timestamp: now };
    case "calls":
    case "emails":
    case "meetings":
    case "tasks":
    case "communications":
    case "postal_mail":
      return { hs_timestamp: now };
    default:
      return { name: "Meter" };
  }
}

interface Attribute {
  name: string;
  baseName: string;
  type: string;
}

/** The generated models of a family, by name (ObjectSerializer re-exports every model and enum). */
function models(dir: string): Record<string, unknown> {
  const file = join(dir, "models", "ObjectSerializer.js");
  return existsSync(file) ? (require(file) as Record<string, unknown>) : {};
}

/** The fields a model's declaration marks as required (`'name': T`, not `'name'?: T`). */
function requiredFields(dir: string, model: string): Set<string> {
  const file = join(dir, "models", `${model}.d.ts`);
  if (!existsSync(file)) return new Set();
  const source = readFileSync(file, "utf8");
  const body = source.slice(source.indexOf(`export declare class ${model} {`), source.indexOf("static readonly discriminator"));
  return new Set([...body.matchAll(/^ {4}'(\w+)':/gm)].map((m) => m[1]!));
}

/** For a model whose fields are all optional, the one field worth sending (an empty body is rarely a request). */
const PREFERRED_OPTIONAL = ["label", "title", "active", "name", "description"];

interface Scope {
  call: ClientCall;
  fx: Fixtures;
  fresh: boolean;
  notes: string[];
  /** The record type the values are about. */
  type: string | undefined;
  /** The pipeline the call's `pipelineId` and `stageId` name, once one of them asked. */
  pipeline?: Promise<{ id: string; stageId: string }>;
}

/** A fixture's value, or a placeholder and a note when the Worker could not make one. */
async function seeded(s: Scope, what: string, make: () => Promise<string>): Promise<string> {
  try {
    return await make();
  } catch (e) {
    s.notes.push(`no ${what}: ${(e as Error).message}`);
    return "0";
  }
}

const missing = (s: Scope, what: string, placeholder = "1") => {
  s.notes.push(`no ${what} to name`);
  return placeholder;
};

/** A string value by its name, in the call's scope. */
async function stringFor(name: string, s: Scope): Promise<string> {
  const { fx, fresh } = s;
  switch (name) {
    case "id":
    case "objectId":
    case "primaryObjectId":
    case "objectIdToMerge":
    case "recordId":
      return s.type ? seeded(s, `${s.type} record`, () => fx.record(s.type!, fresh)) : "1";
    case "toObjectId":
      return seeded(s, "companies record", () => fx.record("companies", fresh));
    // A list's members: the meter's lists hold contacts.
    case "requestBody":
    case "recordIdsToAdd":
    case "recordIdsToRemove":
      return s.call.family === "crm/lists" ? seeded(s, "contacts record", () => fx.record("contacts", false)) : "meter";
    case "email":
      return `${unique("meter")}@meter.example`;
    case "name":
    case "propertyName":
      return unique("meter");
    case "label":
      return "Meter";
    case "objectType":
      return s.type ?? "contacts";
    case "fromObjectType":
      return "contacts";
    case "toObjectType":
      return "companies";
    case "objectTypeId":
      return "0-1";
    case "groupName":
      return "contactinformation";
    case "eventTemplateId":
      return seeded(s, "timeline template", () => fx.template(false));
    case "targetUrl":
    case "url":
    case "baseUrl":
    case "uri":
    case "createMeetingUrl": // extension settings: URLs the real service would call, checked as every outbound URL
    case "urlToRetrieveAuthedRecording":
      return fx.targetUrl;
    default:
      return "meter";
  }
}

const numberFor = (name: string) => (name === "limit" ? 10 : name === "associationTypeId" ? 279 : name === "maxConcurrentRequests" ? 10 : 1);

/** Hand-made bodies for models whose schema allows values the request cannot use. */
const MODELS: Record<string, (s: Scope) => Promise<unknown>> = {
  PublicObjectSearchRequest: async () => ({ filterGroups: [], sorts: [], properties: [], limit: 10, after: "0" }),
  // Contact 279 → company is the unlabeled HUBSPOT_DEFINED type; the meter associates contacts with companies.
  AssociationSpec: async () => ({ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }),
  // An upsert names a unique property: a contact's email; on other types a custom unique property the meter made.
  SimplePublicObjectBatchInputUpsert: async (s) =>
    s.type === "contacts"
      ? { idProperty: "email", id: `${unique("meter")}@meter.example`, properties: { firstname: "Upserted" } }
      : { idProperty: await seeded(s, `${s.type} unique property`, () => s.fx.uniqueProperty(s.type!)), id: unique("meter"), properties: propertiesFor(s.type) },
  PublicMergeInput: async (s) => ({
    primaryObjectId: await seeded(s, `${s.type} record`, () => s.fx.record(s.type!, true)),
    objectIdToMerge: await seeded(s, `${s.type} record`, () => s.fx.record(s.type!, true)),
  }),
  // A deal stage has a win probability (metadata.probability, 0 to 1), which the Worker requires of deal stages.
  PipelineStageInput: async () => ({ label: unique("meter"), displayOrder: 0, metadata: { probability: "0.5" } }),
  PipelineInput: async () => ({ label: unique("meter"), displayOrder: 0, stages: [{ label: "Open", displayOrder: 0, metadata: { probability: "0.5" } }] }),
  PipelineReplaceInput: async () => ({ label: unique("meter"), displayOrder: 0, stages: [{ label: "Open", displayOrder: 0, metadata: { probability: "0.5" } }] }),
  TimelineEventTemplateToken: async () => ({ name: unique("meter"), label: "Meter", type: "string" }),
  TimelineEventTemplateCreateRequest: async () => ({ name: "Meter", objectType: "contacts", headerTemplate: "Total {{total}}", tokens: [{ name: "total", label: "Total", type: "number" }] }),
  TimelineEvent: async (s) => ({
    eventTemplateId: await seeded(s, "timeline template", () => s.fx.template(false)),
    id: unique("meter"),
    objectId: await seeded(s, "contacts record", () => s.fx.record("contacts", false)),
    tokens: { total: "1" },
  }),
  CardCreateRequest: async (s) => ({
    title: "Meter",
    fetch: { targetUrl: s.fx.targetUrl, objectTypes: [{ name: "contacts", propertiesToSend: ["email"] }] },
    display: { properties: [] },
    actions: { baseUrls: [s.fx.targetUrl] },
  }),
  SettingsChangeRequest: async (s) => ({ targetUrl: s.fx.targetUrl, throttling: { maxConcurrentRequests: 10 } }),
  // Subscriptions stay inactive, so the meter's own writes send no webhooks.
  SubscriptionCreateRequest: async () => ({ eventType: "contact.creation", active: false }),
  SubscriptionPatchRequest: async () => ({ active: false }),
  // Association labels and limits: the meter's calls are all from contacts to companies.
  PublicAssociationDefinitionCreateRequest: async () => ({ name: unique("meter"), label: "Meter", inverseLabel: "Metered" }),
  PublicAssociationDefinitionUpdateRequest: async (s) => ({ associationTypeId: Number(await seeded(s, "association label", async () => String(await s.fx.associationLabel(false)))), label: "Renamed" }),
  PublicAssociationDefinitionConfigurationCreateRequest: async () => ({ category: "HUBSPOT_DEFINED", typeId: 279, maxToObjectIds: 1000 }),
  PublicAssociationDefinitionConfigurationUpdateRequest: async () => ({ category: "HUBSPOT_DEFINED", typeId: 279, maxToObjectIds: 1000 }),
  PublicAssociationSpec: async () => ({ category: "HUBSPOT_DEFINED", typeId: 279 }),
  PublicFetchAssociationsBatchRequest: async (s) => ({ id: (await pair(s))[0] }),
  PublicAssociationMultiPost: async (s) => {
    const [from, to] = await pair(s);
    return { _from: { id: from }, to: { id: to }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] };
  },
  PublicDefaultAssociationMultiPost: async (s) => {
    const [from, to] = await pair(s);
    return { _from: { id: from }, to: { id: to } };
  },
  PublicAssociationMultiArchive: async (s) => {
    const [from, to] = await pair(s);
    return { _from: { id: from }, to: [{ id: to }] };
  },
  PublicAssociation: async (s) => {
    const [from, to] = await pair(s);
    return { _from: { id: from }, to: { id: to }, type: "contact_to_company" };
  },
  // Not among the models the package's ObjectSerializer exports (its API module is one no Client reaches).
  BatchInputRecordIdInput: async (s) => ({ inputs: [{ objectTypeId: "0-1", recordId: await seeded(s, "contacts record", () => s.fx.record("contacts", false)) }] }),
  ListCreateRequest: async () => ({ name: unique("meter"), objectTypeId: "0-1", processingType: "MANUAL" }),
  ObjectSchemaEgg: async () => {
    const name = unique("meter");
    return {
      name,
      labels: { singular: "Meter", plural: "Meters" },
      primaryDisplayProperty: "meter_name",
      requiredProperties: ["meter_name"],
      properties: [{ name: "meter_name", label: "Name", type: "string", fieldType: "text" }],
      associatedObjects: ["CONTACT"],
    };
  },
  ObjectTypeDefinitionPatch: async () => ({ labels: { singular: "Meter", plural: "Meters" } }),
  ObjectSchemaBatchReadRequest: async (s) => ({ inputs: [await seeded(s, "schema", () => s.fx.schema(false))] }),
  // The shared schema is associated with contacts from its creation: a second definition of that pair is a 400.
  AssociationDefinitionEgg: async (s) => ({ fromObjectTypeId: await seeded(s, "schema", () => s.fx.schema(false)), toObjectTypeId: "0-2" }),
  SubscriptionBatchUpdateRequest: async (s) => ({ id: Number(await seeded(s, "webhook subscription", () => s.fx.subscription(false))), active: false }),
};

/** A contact and a company of the meter's account, associated (fresh ones for calls that remove). */
const pair = (s: Scope) =>
  s.fx.associatedPair("contacts", "companies").catch((e: Error) => {
    s.notes.push(`no associated pair: ${e.message}`);
    return ["0", "0"] as [string, string];
  });

/** A value of an ObjectSerializer type, named `name`, in the call's scope. */
async function valueOf(type: string, name: string, s: Scope): Promise<unknown> {
  const array = type.match(/^Array<(.+)>$/);
  if (array) {
    // Empty where an empty list is a complete request (a record's associations, a read's property names).
    if (/^(associations|properties|propertiesWithHistory|sorts|filterGroups|options)$/.test(name)) return [];
    return [await valueOf(array[1]!, name, s)];
  }
  const map = type.match(/^\{ \[key: string\]: (.+); \}$/);
  if (map) return name === "properties" ? propertiesFor(s.type) : {};
  switch (type) {
    case "string":
      return stringFor(name, s);
    case "number":
      return numberFor(name);
    case "boolean":
      return true;
    case "Date":
      return new Date();
    case "any":
    case "object":
      return {};
  }
  if (MODELS[type]) return MODELS[type](s);
  const found = models(s.call.dir)[type] as { attributeTypeMap?: Attribute[] } | Record<string, string> | undefined;
  if (!found) return {};
  if (!("attributeTypeMap" in found) || !Array.isArray(found.attributeTypeMap)) return Object.values(found)[0]; // an enum
  const attrs = found.attributeTypeMap as Attribute[];
  const required = requiredFields(s.call.dir, type);
  const chosen = required.size > 0 ? attrs.filter((a) => required.has(a.name)) : attrs.filter((a) => a.name === PREFERRED_OPTIONAL.find((p) => attrs.some((x) => x.name === p)));
  const out: Record<string, unknown> = {};
  for (const a of chosen) out[a.name] = await valueOf(a.type, a.name, s);
  return out;
}

/** A path parameter, by its placeholder. */
async function pathValue(wire: string, s: Scope): Promise<string> {
  const { call, fx, fresh } = s;
  const segments = call.path.split("/");
  const before = segments[segments.indexOf(`{${wire}}`) - 1];
  if (wire === "appId") return String(fx.appId);
  if (wire === "userId") return String(fx.userId);
  if (wire === "token") {
    if (call.path.includes("access-tokens")) return fx.accessToken;
    return fresh ? fx.spareRefreshToken : fx.refreshToken;
  }
  if (wire === "eventId") return seeded(s, "timeline event", () => fx.event());
  if (wire === "eventTemplateId") return seeded(s, "timeline template", () => fx.template(fresh && !call.params.some((p) => p.wire === "tokenName")));
  if (wire === "tokenName") return seeded(s, "timeline token", () => fx.templateToken(fresh));
  if (wire === "cardId") return seeded(s, "card", () => fx.card(fresh));
  if (wire === "subscriptionId") return seeded(s, "webhook subscription", () => fx.subscription(fresh));
  if (wire === "propertyName") return seeded(s, "property", () => fx.property(fresh));
  if (wire === "groupName") return seeded(s, "property group", () => fx.propertyGroup(fresh));
  if (wire === "ownerId") return seeded(s, "owner", () => fx.owner());
  if (wire === "pipelineId" || wire === "stageId") {
    // A call that removes or replaces gets a pipeline of its own; the others read the shared one.
    s.pipeline ??= fx.pipeline(fresh || call.httpMethod === "PUT");
    return seeded(s, "pipeline", async () => (await s.pipeline!)[wire === "pipelineId" ? "id" : "stageId"]);
  }
  if (wire === "listId" || wire === "sourceListId") return seeded(s, "list", async () => (await fx.list(fresh && wire === "listId")).listId);
  if (wire === "listName") return seeded(s, "list", async () => (await fx.list(false)).name);
  if (call.family === "crm/schemas" && wire === "objectType") return seeded(s, "schema", () => fx.schema(fresh));
  if (wire === "associationIdentifier") return seeded(s, "schema association", async () => (await fx.schemaAssociation()).associationId);
  if (wire === "associationTypeId") return seeded(s, "association label", async () => String(await fx.associationLabel(fresh)));
  if (/^(objectType|fromObjectType|toObjectType|objectTypeId)$/.test(wire)) return stringFor(wire, s);
  if (wire === "objectId" || wire === "fromObjectId" || wire === "recordId") return stringFor("id", s);
  if (wire === "toObjectId") return stringFor("toObjectId", s);
  // `/objects/notes/{noteId}`: an id after a record type is a record of that type.
  if (before && !before.startsWith("{") && segments.includes("objects") && /Id$/.test(wire)) {
    return seeded(s, `${before} record`, () => fx.record(before, fresh));
  }
  return missing(s, wire);
}

/** Calls whose arguments need more than the generic rules: all of them, in the factory's order. */
const CALLS: Record<string, (s: Scope) => Promise<unknown[]>> = {
  // The refresh grant is the one token request an install can make without a person at a browser.
  "oauth.tokensApi.create": async ({ fx }) => ["refresh_token", undefined, undefined, fx.clientId, fx.clientSecret, fx.refreshToken],
  // Removing an association needs one to exist.
  "crm.associations.v4.basicApi.archive": async (s) => {
    const [from, to] = await s.fx.associatedPair("contacts", "companies").catch((e: Error) => {
      s.notes.push(`no associated pair: ${e.message}`);
      return ["0", "0"];
    });
    return ["contacts", from, "companies", to];
  },
  // A template update replaces the template's tokens: it works on a template of its own, so the token calls,
  // which run beside it on the shared template, still find the tokens they name.
  "crm.timeline.templatesApi.update": async (s) => {
    const id = await seeded(s, "timeline template", () => s.fx.template(true));
    return [id, s.fx.appId, { id, name: "Meter", headerTemplate: "Total {{total}}", tokens: [{ name: "total", label: "Total", type: "number" }] }];
  },
  // The legacy id is an optional query parameter, but the call maps nothing without one; here a legacy id is the list's.
  "crm.lists.mappingApi.translateLegacyListIdToListId": async (s) => [await pathValue("listId", s)],
  "crm.lists.mappingApi.translateLegacyListIdToListIdBatch": async (s) => [[await pathValue("listId", s)]],
  // A folder of the meter's, renamed (the new name is an optional query parameter) or moved to the root.
  "crm.lists.foldersApi.rename": async (s) => [await seeded(s, "list folder", () => s.fx.listFolder()), unique("meter")],
  "crm.lists.foldersApi.move": async (s) => [await seeded(s, "list folder", () => s.fx.listFolder()), "0"],
  "crm.lists.foldersApi.moveList": async (s) => [{ listId: await pathValue("listId", s), newFolderId: await seeded(s, "list folder", () => s.fx.listFolder()) }],
  // Only an archived list can be restored.
  "crm.lists.listsApi.restore": async (s) => [await seeded(s, "archived list", () => s.fx.archivedList())],
  // The list's new name is an optional query parameter, but a rename without one renames nothing.
  "crm.lists.listsApi.updateName": async (s) => [await pathValue("listId", s), unique("meter")],
  // The definition removed belongs to the schema the path names.
  "crm.schemas.coreApi.archiveAssociation": async (s) => {
    const made = await s.fx.schemaAssociation().catch((e: Error) => {
      s.notes.push(`no schema association: ${e.message}`);
      return { objectType: "0", associationId: "0" };
    });
    return [made.objectType, made.associationId];
  },
};

/** The arguments of a call. */
export async function inputFor(call: ClientCall, fx: Fixtures): Promise<CallInput> {
  const s: Scope = { call, fx, fresh: destroys(call), notes: [], type: recordType(call) };
  if (CALLS[call.accessor]) return { args: await CALLS[call.accessor]!(s), notes: s.notes };
  const args: unknown[] = [];
  for (const p of call.params) {
    if (!p.required) args.push(undefined);
    else if (p.in === "path") args.push(await pathValue(p.wire, s));
    else args.push(await valueOf(p.type, p.name, s));
  }
  return { args, notes: s.notes };
}
