/**
 * The coverage meter of the official client: every call of the unmodified @hubspot/api-client 14.0.1 in its
 * `crm`, `oauth` and `webhooks` folders (test/node/client-calls.ts), made through the client against the
 * Worker with inputs built for it (test/node/client-inputs.ts). A call is served when the client's promise
 * resolves: the generated response processor has then accepted the status and read the body. The table of
 * served and missing calls is the section of docs/reference/clients.md between the BEGIN and END markers;
 * the test rewrites it after each run. A call that the committed table lists as served and that is not
 * served now fails the test, and the table is then left as committed, so that the loss stays visible.
 */
import { Client } from "@hubspot/api-client";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/lib/scopes";
import { callKey, clientCalls, type ClientCall } from "./client-calls";
import { destroys, inputFor, propertiesFor, unique, type Fixtures } from "./client-inputs";
import { integratorPath, REDIRECT_URI } from "./clients";
import { admin, integratorUrl, workerUrl } from "./helpers";

const require = createRequire(import.meta.url);
const DOC = fileURLToPath(new URL("../../docs/reference/clients.md", import.meta.url));
const BEGIN = "<!-- client-coverage:begin (written by test/node/client-coverage.test.ts) -->";
const END = "<!-- client-coverage:end -->";
/** Calls in flight at once: enough to finish in seconds, few enough not to crowd the Worker's databases. */
const CONCURRENCY = 8;

interface Outcome {
  served: boolean;
  /** Why not, in one short phrase, for a missing call. */
  why: string;
  notes: string[];
}

/** A set-up request that must work, with the developer key (`hapikey`) or a bearer token. */
async function setUp(credential: { hapikey: string } | { bearer: string }, method: string, path: string, body?: unknown): Promise<Record<string, string>> {
  const url = "hapikey" in credential ? `${workerUrl()}${path}?hapikey=${credential.hapikey}` : `${workerUrl()}${path}`;
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...("bearer" in credential ? { authorization: `Bearer ${credential.bearer}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} answered ${res.status}`);
  return text ? (JSON.parse(text) as Record<string, string>) : {};
}

/** One memoized promise per key (a failure is remembered too: every call that needs the thing notes it). */
function once<T>(make: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const made = new Map<string, Promise<T>>();
  return (key) => {
    if (!made.has(key)) made.set(key, make(key));
    return made.get(key)!;
  };
}

/** An account with an app installed with every scope, a spare install to revoke, and the records the calls name. */
async function fixtures(): Promise<{ fx: Fixtures; developerKey: string }> {
  const tag = unique("meter");
  const scopes = [...SCOPES];
  const acct = await admin("POST", "/admin/v1/accounts", { name: tag, rateLimit: 100_000 });
  const app = await admin("POST", "/admin/v1/apps", { name: tag, redirectUris: [REDIRECT_URI], scopes });
  const install = await admin("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { appId: app.appId, scopes });
  const spareApp = await admin("POST", "/admin/v1/apps", { name: `${tag}-spare`, redirectUris: [REDIRECT_URI], scopes });
  const spare = await admin("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { appId: spareApp.appId, scopes });
  const user = await admin("POST", `/admin/v1/accounts/${acct.portalId}/users`, { email: `${tag}@meter.example`, password: "correct horse battery" });
  const dev = { hapikey: app.developerKey as string };
  const bearer = { bearer: install.access_token as string };
  const targetUrl = `${integratorUrl()}${integratorPath("meter")}`;
  // Settings first: an app's subscriptions and its settings calls need them.
  await setUp(dev, "PUT", `/webhooks/v3/${app.appId}/settings`, { targetUrl, throttling: { maxConcurrentRequests: 10 } });

  const newRecord = async (type: string) => (await setUp(bearer, "POST", `/crm/v3/objects/${type}`, { properties: propertiesFor(type) })).id!;
  const sharedRecord = once(newRecord);
  const newProperty = async () =>
    (await setUp(bearer, "POST", "/crm/v3/properties/contacts", { name: unique("meter"), label: "Meter", type: "string", fieldType: "text", groupName: "contactinformation" })).name!;
  const sharedProperty = once(newProperty);
  const newGroup = async () => (await setUp(bearer, "POST", "/crm/v3/properties/contacts/groups", { name: unique("meter"), label: "Meter" })).name!;
  const sharedGroup = once(newGroup);
  // An upsert names a unique property of its type: one custom `hasUniqueValue` property per type, made once.
  const uniqueProperty = once(async (type: string) => {
    const groups = (await setUp(bearer, "GET", `/crm/v3/properties/${type}/groups`)) as unknown as { results: { name: string }[] };
    const body = { name: "meter_key", label: "Meter key", type: "string", fieldType: "text", groupName: groups.results[0]!.name, hasUniqueValue: true };
    return (await setUp(bearer, "POST", `/crm/v3/properties/${type}`, body)).name!;
  });
  const newTemplate = async () =>
    (
      await setUp(dev, "POST", `/integrators/timeline/v3/${app.appId}/event-templates`, {
        name: "Meter",
        objectType: "contacts",
        headerTemplate: "Total {{total}}",
        tokens: [{ name: "total", label: "Total", type: "number" }],
      })
    ).id!;
  const sharedTemplate = once(newTemplate);
  const newToken = async () => (await setUp(dev, "POST", `/integrators/timeline/v3/${app.appId}/event-templates/${await sharedTemplate("")}/tokens`, { name: unique("meter"), label: "Meter", type: "string" })).name!;
  const sharedToken = once(newToken);
  const sharedEvent = once(async () =>
    (await setUp(bearer, "POST", "/integrators/timeline/v3/events", { eventTemplateId: await sharedTemplate(""), id: unique("meter"), objectId: await sharedRecord("contacts"), tokens: { total: "1" } })).id!,
  );
  const newCard = async () =>
    (
      await setUp(dev, "POST", `/crm/v3/extensions/cards-dev/${app.appId}`, {
        title: "Meter",
        fetch: { targetUrl, objectTypes: [{ name: "contacts", propertiesToSend: ["email"] }] },
        display: { properties: [] },
        actions: { baseUrls: [targetUrl] },
      })
    ).id!;
  const sharedCard = once(newCard);
  // Inactive subscriptions of event types the `create` call does not use (it subscribes to contact.creation).
  const newSubscription = async (eventType: string) => String((await setUp(dev, "POST", `/webhooks/v3/${app.appId}/subscriptions`, { eventType, active: false })).id);
  const sharedSubscription = once(() => newSubscription("company.creation"));
  const owner = once(async () => (await setUp(bearer, "GET", `/crm/v3/owners?email=${encodeURIComponent(`${tag}@meter.example`)}`)) as unknown as { results: { id: string }[] });
  const stage = (label: string, displayOrder: number) => ({ label, displayOrder, metadata: { probability: "0.5" } });
  const newPipeline = async () => {
    const made = (await setUp(bearer, "POST", "/crm/v3/pipelines/deals", { label: unique("meter"), displayOrder: 9, stages: [stage("Open", 0), stage("Next", 1)] })) as unknown as {
      id: string;
      stages: { id: string }[];
    };
    return { id: made.id, stageId: made.stages[1]!.id };
  };
  const sharedPipeline = once(newPipeline);
  const newLabel = async () =>
    ((await setUp(bearer, "POST", "/crm/v4/associations/contacts/companies/labels", { name: unique("meter"), label: "Meter" })) as unknown as { results: { typeId: number }[] }).results[0]!.typeId;
  const sharedLabel = once(newLabel);
  const newList = async () => {
    const name = unique("meter");
    const made = (await setUp(bearer, "POST", "/crm/v3/lists", { name, objectTypeId: "0-1", processingType: "MANUAL" })) as unknown as { list: { listId: string } };
    await setUp(bearer, "PUT", `/crm/v3/lists/${made.list.listId}/memberships/add`, [await sharedRecord("contacts")]);
    return { listId: made.list.listId, name };
  };
  const sharedList = once(newList);
  const newSchema = async () => {
    const made = (await setUp(bearer, "POST", "/crm-object-schemas/v3/schemas", {
      name: unique("meter"),
      labels: { singular: "Meter", plural: "Meters" },
      primaryDisplayProperty: "meter_name",
      requiredProperties: ["meter_name"],
      properties: [{ name: "meter_name", label: "Name", type: "string", fieldType: "text" }],
      associatedObjects: ["CONTACT"],
    })) as unknown as { objectTypeId: string };
    return made.objectTypeId;
  };
  const sharedSchema = once(newSchema);
  const freshTypes = ["deal.creation", "contact.deletion", "company.deletion", "deal.deletion"];

  const fx: Fixtures = {
    appId: app.appId,
    userId: user.userId,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    accessToken: install.access_token,
    refreshToken: install.refresh_token,
    spareRefreshToken: spare.refresh_token,
    targetUrl,
    record: (type, fresh) => (fresh ? newRecord(type) : sharedRecord(type)),
    async associatedPair(from, to) {
      const [a, b] = [await newRecord(from), await newRecord(to)];
      await setUp(bearer, "PUT", `/crm/v4/objects/${from}/${a}/associations/default/${to}/${b}`);
      return [a, b];
    },
    property: (fresh) => (fresh ? newProperty() : sharedProperty("")),
    // A custom group: the built-in one of a type (contactinformation) is read-only, so an update names a made one.
    propertyGroup: (fresh) => (fresh ? newGroup() : sharedGroup("")),
    uniqueProperty: (type) => uniqueProperty(type),
    template: (fresh) => (fresh ? newTemplate() : sharedTemplate("")),
    templateToken: (fresh) => (fresh ? newToken() : sharedToken("")),
    event: () => sharedEvent(""),
    card: (fresh) => (fresh ? newCard() : sharedCard("")),
    subscription: (fresh) => (fresh ? newSubscription(freshTypes.shift() ?? "deal.propertyChange") : sharedSubscription("")),
    owner: async () => (await owner("")).results[0]!.id,
    pipeline: (fresh) => (fresh ? newPipeline() : sharedPipeline("")),
    associationLabel: (fresh) => (fresh ? newLabel() : sharedLabel("")),
    list: (fresh) => (fresh ? newList() : sharedList("")),
    listFolder: async () => String(((await setUp(bearer, "POST", "/crm/v3/lists/folders", { name: unique("meter") })) as unknown as { folder: { id: number } }).folder.id),
    async archivedList() {
      const { listId } = await newList();
      await setUp(bearer, "DELETE", `/crm/v3/lists/${listId}`);
      return listId;
    },
    schema: (fresh) => (fresh ? newSchema() : sharedSchema("")),
    async schemaAssociation() {
      const objectType = await newSchema();
      const made = (await setUp(bearer, "POST", `/crm-object-schemas/v3/schemas/${objectType}/associations`, { fromObjectTypeId: objectType, toObjectTypeId: "0-2", name: unique("meter") })) as unknown as { id: string };
      return { objectType, associationId: made.id };
    },
  };
  return { fx, developerKey: app.developerKey };
}

type Callable = Record<string, (...args: unknown[]) => Promise<unknown>>;
interface Observableish<T> {
  toPromise(): Promise<T>;
}
interface Configuration {
  middleware: { pre(ctx: unknown): Observableish<unknown>; post(rsp: unknown): Observableish<unknown> }[];
  httpApi: { send(ctx: unknown): Observableish<unknown> };
}

/**
 * Sends a call. A call of the Client goes through its accessor. A call of a module no Client reaches is sent
 * the way the generated Observable classes send one (factory, middleware, HTTP, response processor), with
 * the configuration the Client gave that family's other APIs, so it carries the same base path and credentials.
 */
async function send(client: Client, call: ClientCall, reachable: ClientCall[], args: unknown[]): Promise<unknown> {
  const walk = (accessor: string) => accessor.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], client);
  if (call.exposed) {
    const api = walk(call.accessor.slice(0, call.accessor.lastIndexOf("."))) as Callable;
    return api[call.method]!(...args);
  }
  const sibling = reachable.find((c) => c.family === call.family);
  if (!sibling) throw new Error("no API of this family on the Client to take a configuration from");
  const config = (walk(sibling.accessor.slice(0, sibling.accessor.lastIndexOf("."))) as { api: { configuration: Configuration } }).api.configuration;
  const mod = require(call.file) as Record<string, new (config?: Configuration) => Callable>;
  const factory = new mod[`${call.api}RequestFactory`]!(config);
  const processor = new mod[`${call.api}ResponseProcessor`]!();
  let ctx = await factory[call.method]!(...args);
  for (const m of config.middleware) ctx = await m.pre(ctx).toPromise();
  let rsp = await config.httpApi.send(ctx).toPromise();
  for (const m of [...config.middleware].reverse()) rsp = await m.post(rsp).toPromise();
  return ((await processor[`${call.method}WithHttpInfo`]!(rsp)) as { data: unknown }).data;
}

/** Numbers (ids, counts) out of a phrase, so that the committed table changes only when a result does. */
const stable = (text: string) => text.replace(/\d{3,}/g, "N").replace(/\s+/g, " ").trim().slice(0, 70);

/** Why a call did not resolve: the status and the error category, or what the client threw. */
function why(call: ClientCall, e: unknown): string {
  const ex = e as { code?: unknown; body?: unknown };
  if (typeof ex?.code === "number") {
    if (ex.code >= 200 && ex.code < 300) return `answered ${ex.code}, documented ${call.status}`;
    const body = ex.body as { category?: unknown; message?: unknown } | undefined;
    const detail = typeof body?.category === "string" ? body.category : typeof body?.message === "string" ? stable(body.message) : "";
    return `${ex.code}${detail ? ` ${detail}` : ""}`;
  }
  const message = e instanceof Error ? e.message : String(e);
  // The generated serializer looks union types (`A | B`) up as models and fails before any request is sent.
  if (message.includes("getAttributeTypeMap is not a function")) return "not sent: the client cannot serialize its union body type";
  return `client error: ${stable(message)}`;
}

/** Runs `work` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(Array.from({ length: limit }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  }));
}

const cell = (text: string) => text.replaceAll("|", "\\|");

function render(calls: ClientCall[], outcomes: Map<string, Outcome>): string {
  const families = [...new Set(calls.map((c) => c.family))];
  const served = calls.filter((c) => outcomes.get(callKey(c))!.served).length;
  const lines = [BEGIN, "", `**${served} of ${calls.length} calls served.**`, "", "| family | served | calls |", "|---|---|---|"];
  for (const f of families) {
    const of = calls.filter((c) => c.family === f);
    lines.push(`| [${f}](#${f.replaceAll("/", "")}) | ${of.filter((c) => outcomes.get(callKey(c))!.served).length} | ${of.length} |`);
  }
  for (const f of families) {
    lines.push("", `### ${f}`, "", "| call | method and path | result |", "|---|---|---|");
    for (const c of calls.filter((x) => x.family === f)) {
      const o = outcomes.get(callKey(c))!;
      const result = o.served ? "served" : `missing: ${[o.why, ...o.notes].map(cell).join("; ")}`;
      lines.push(`| \`${c.accessor}\`${c.exposed ? "" : " †"} | \`${c.httpMethod} ${c.path}\` | ${result} |`);
    }
  }
  lines.push("", END);
  return lines.join("\n");
}

/** The calls the committed table lists as served, by method and path. */
function committedServed(doc: string): Set<string> {
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from === -1 || to < from) throw new Error(`docs/reference/clients.md has no coverage markers (${BEGIN} … ${END})`);
  const rows = doc.slice(from, to).matchAll(/^\| `[^`]+`[^|]*\| `(\w+) ([^`]+)` \| served \|$/gm);
  return new Set([...rows].map((m) => callKey({ httpMethod: m[1]!, path: m[2]! })));
}

describe("coverage of @hubspot/api-client 14.0.1", () => {
  it("makes every call of crm, oauth and webhooks, keeps each call the table lists as served, and rewrites the table", async () => {
    const calls = clientCalls();
    expect(calls.length).toBeGreaterThan(300);
    const doc = readFileSync(DOC, "utf8");
    const before = committedServed(doc);

    const { fx, developerKey } = await fixtures();
    const client = new Client({ accessToken: fx.accessToken, developerApiKey: developerKey, basePath: workerUrl() });
    const reachable = calls.filter((c) => c.exposed);
    const outcomes = new Map<string, Outcome>();
    const run = async (call: ClientCall) => {
      const input = await inputFor(call, fx);
      try {
        await send(client, call, reachable, input.args);
        outcomes.set(callKey(call), { served: true, why: "", notes: input.notes });
      } catch (e) {
        outcomes.set(callKey(call), { served: false, why: why(call, e), notes: input.notes });
      }
    };
    // Reads and writes first; then the calls that destroy what they name (each on records made for it); last
    // the ones that remove an app's or an install's whole state (webhook settings, a refresh token).
    const appWide = (c: ClientCall) => destroys(c) && [...c.path.matchAll(/\{(\w+)\}/g)].every((m) => m[1] === "appId" || m[1] === "token");
    // Extension settings first, one at a time (an app's calling settings before its recording and channel
    // connection ones): their getters and updaters, in the next phase, read and change the documents these make.
    const makesSettings = (c: ClientCall) => /^\/crm\/v3\/extensions\/(calling|videoconferencing)\/.*settings/.test(c.path) && (c.httpMethod === "POST" || c.httpMethod === "PUT");
    await pool(calls.filter(makesSettings).sort((a, b) => a.path.length - b.path.length), 1, run);
    await pool(calls.filter((c) => !destroys(c) && !makesSettings(c)), CONCURRENCY, run);
    await pool(calls.filter((c) => destroys(c) && !appWide(c)), CONCURRENCY, run);
    await pool(calls.filter(appWide), CONCURRENCY, run);

    const lost = calls.filter((c) => before.has(callKey(c)) && !outcomes.get(callKey(c))!.served).map((c) => `${callKey(c)} (${c.accessor}): ${outcomes.get(callKey(c))!.why}`);
    if (lost.length === 0) {
      writeFileSync(DOC, doc.slice(0, doc.indexOf(BEGIN)) + render(calls, outcomes) + doc.slice(doc.indexOf(END) + END.length));
    }
    // An error's message is printed whole (an assertion's is cut): each lost call and why it failed.
    if (lost.length) throw new Error(`calls the committed table lists as served, not served in this run:\n${lost.join("\n")}`);
  });
});
