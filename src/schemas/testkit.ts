/** @module zod schemas of the test kit's operator routes (docs/reference/testkit.md). */
import { z } from "zod";
import { EVENT_TYPES, GENERIC_EVENT_TYPES, GENERIC_TYPE_IDS } from "./webhooks/event-types";
import { propertiesInput } from "./crm/objects";
import { createPostV3Body } from "./blog/v3";
import { iframeV3 } from "./timeline/v3";
import { createSubscriptionBody } from "./webhooks/settings";

export const FAULT_STATUSES = [429, 500, 502, 503, 504] as const;
/** The real service's 429 policies: its 10-second limit, the search API's per-second one, the daily one. */
export const POLICY_NAMES = ["TEN_SECONDLY_ROLLING", "SECONDLY", "DAILY"] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];
/** Which of an account's credentials a rule matches (the names are the API's, as in `credential` below). */
export const FAULT_CREDENTIALS = ["private-app", "oauth", "developer-key"] as const;
export const MAX_FAULT_RULES = 50;
export const MAX_LATENCY_MS = 30_000;

const faultRule = z
  .strictObject({
    match: z
      .strictObject({
        method: z
          .string()
          .transform((m) => m.toUpperCase())
          .pipe(z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"], { error: "method must be GET, POST, PUT, PATCH or DELETE" }))
          .optional(),
        path: z
          .string()
          .min(1)
          .max(500)
          .regex(/^\//, "path is a glob over the request path and starts with /: * matches within a segment, ** across segments")
          .optional(),
        credential: z
          .enum(FAULT_CREDENTIALS, { error: "credential must be private-app, oauth or developer-key" })
          // A developer key is an app's credential, made for no account: an account's rule can never see its calls.
          .refine((c) => c !== "developer-key", "a developer key is an app's credential, not the account's: fault rules match calls made with the account's private-app and OAuth tokens")
          .optional(),
      })
      .prefault({}),
    respond: z
      .strictObject({
        status: z.union(FAULT_STATUSES.map((s) => z.literal(s)) as [z.ZodLiteral<429>, ...z.ZodLiteral<number>[]], { error: "status must be 429, 500, 502, 503 or 504" }),
        policyName: z.enum(POLICY_NAMES, { error: "policyName must be TEN_SECONDLY_ROLLING, SECONDLY or DAILY" }).optional(),
      })
      .refine((r) => r.policyName === undefined || r.status === 429, { message: "policyName goes with status 429", path: ["policyName"] })
      .optional(),
    probability: z.number().min(0).max(1).optional(),
    times: z.number().int().min(1).max(1_000_000).optional(),
    latencyMs: z.number().int().min(0).max(MAX_LATENCY_MS).optional(),
    seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  })
  .refine((r) => r.respond !== undefined || (r.latencyMs ?? 0) > 0, "a rule needs respond (a fault), latencyMs (a delay), or both");
export type FaultRuleInput = z.output<typeof faultRule>;

export const faultsBody = z.strictObject({ rules: z.array(faultRule).max(MAX_FAULT_RULES, `at most ${MAX_FAULT_RULES} rules`) });

export const faultRuleView = z.object({
  id: z.number().int(),
  match: z.object({ method: z.string().optional(), path: z.string().optional(), credential: z.string().optional() }),
  respond: z.object({ status: z.number().int(), policyName: z.string().optional() }).optional(),
  probability: z.number().optional(),
  seed: z.number().int().optional(),
  latencyMs: z.number().int(),
  /** Faults left to give; absent: no end. */
  timesLeft: z.number().int().optional(),
  /** Calls the rule matched, and the faults (or delays) it gave. */
  calls: z.number().int(),
  faults: z.number().int(),
});
export const faultsView = z.object({ rules: z.array(faultRuleView) });

/** Snapshots an account may keep at once. */
export const MAX_SNAPSHOTS = 20;
export const snapshotName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "name is 1 to 64 letters, digits, dots, dashes or underscores");
export const snapshotBody = z.strictObject({ name: snapshotName });
export const snapshotParams = z.object({ portalId: z.string().regex(/^[1-9]\d{0,14}$/, "portalId must be a decimal id").transform(Number), name: snapshotName });
export const snapshotView = z.object({ name: z.string(), createdAt: z.string(), counts: z.record(z.string(), z.number().int()) });
export const snapshotList = z.object({ results: z.array(snapshotView) });
export const restoredView = z.object({ name: z.string().nullable(), restoredAt: z.string(), counts: z.record(z.string(), z.number().int()) });

/** The longest search lag a test may ask for: a minute (the real index usually catches up within seconds). */
export const MAX_SEARCH_LAG_MS = 60_000;

/** `PATCH /admin/v1/apps/{appId}/webhooks`: the operator's hold on the app's deliveries. */
export const holdBody = z.strictObject({ held: z.boolean({ error: "held must be true or false" }) });
export const holdView = z.object({
  appId: z.number().int(),
  held: z.boolean(),
  /** When the hold began; absent when not held. */
  heldAt: z.string().optional(),
  /** Deliveries (and their events) waiting in the delivery log as `held`. */
  heldDeliveries: z.number().int(),
  heldEvents: z.number().int(),
});

const positiveId = (field: string) => z.number({ error: `${field} must be a number` }).int(`${field} must be an integer`).positive(`${field} must be positive`).max(Number.MAX_SAFE_INTEGER);

/**
 * `POST /admin/v1/apps/{appId}/webhooks/test-events`: one event of a type the service emits, to the app's
 * target URL. `objectTypeId` only with the generic `object.*` types, which need it.
 */
export const testEventBody = z
  .strictObject({
    portalId: positiveId("portalId"),
    subscriptionType: z.string({ error: "subscriptionType must be a string" }),
    objectTypeId: z.string().optional(),
    objectId: positiveId("objectId").optional(),
    propertyName: z.string().min(1).max(500).optional(),
    propertyValue: z.string().max(65_536).optional(),
  })
  .superRefine((b, ctx) => {
    const generic = (GENERIC_EVENT_TYPES as readonly string[]).includes(b.subscriptionType);
    if (!generic && !EVENT_TYPES.includes(b.subscriptionType)) {
      ctx.addIssue({ code: "custom", path: ["subscriptionType"], message: `subscriptionType must be one the service emits: ${[...EVENT_TYPES, ...GENERIC_EVENT_TYPES].join(", ")}` });
      return;
    }
    if (generic && (b.objectTypeId === undefined || !GENERIC_TYPE_IDS.has(b.objectTypeId))) {
      ctx.addIssue({ code: "custom", path: ["objectTypeId"], message: `objectTypeId is required with ${b.subscriptionType}: one of ${[...GENERIC_TYPE_IDS.keys()].join(", ")}` });
    }
    if (!generic && b.objectTypeId !== undefined) ctx.addIssue({ code: "custom", path: ["objectTypeId"], message: "objectTypeId goes only with the generic object.* types" });
    const change = b.subscriptionType.endsWith(".propertyChange");
    if (change && b.propertyName === undefined) ctx.addIssue({ code: "custom", path: ["propertyName"], message: `propertyName is required with ${b.subscriptionType}` });
    if (!change && (b.propertyName !== undefined || b.propertyValue !== undefined)) {
      ctx.addIssue({ code: "custom", path: [b.propertyName !== undefined ? "propertyName" : "propertyValue"], message: "propertyName and propertyValue go only with a propertyChange type" });
    }
  });
export type TestEventInput = z.output<typeof testEventBody>;

/** The event as queued: what the POST carries, less `attemptNumber` (added per attempt). */
export const testEventView = z.object({
  eventId: z.number().int(),
  subscriptionId: z.number().int(),
  portalId: z.number().int(),
  appId: z.number().int(),
  occurredAt: z.number().int(),
  subscriptionType: z.string(),
  objectId: z.number().int(),
  objectTypeId: z.string().optional(),
  changeSource: z.string(),
  propertyName: z.string().optional(),
  propertyValue: z.string().optional(),
  primaryObjectId: z.number().int().optional(),
  mergedObjectIds: z.array(z.number().int()).optional(),
  associationType: z.string().optional(),
  fromObjectId: z.number().int().optional(),
  toObjectId: z.number().int().optional(),
  associationRemoved: z.boolean().optional(),
  isPrimaryAssociation: z.boolean().optional(),
});

/** `PATCH /admin/v1/accounts/{portalId}/quirks`: the fields given change, the others stay. */
export const quirksBody = z
  .strictObject({
    searchLagMs: z.number({ error: "searchLagMs must be a number" }).int("searchLagMs must be an integer").min(0, "searchLagMs must be 0 or more").max(MAX_SEARCH_LAG_MS, `searchLagMs is at most ${MAX_SEARCH_LAG_MS}`).optional(),
  })
  .refine((b) => b.searchLagMs !== undefined, { message: "Give searchLagMs", path: ["searchLagMs"] });
export const quirksView = z.object({ portalId: z.number().int(), searchLagMs: z.number().int() });
/** Records a fixture may hold, of every type together, and associations (docs/reference/testkit.md "Fixtures"). */
export const MAX_FIXTURE_RECORDS = 50_000;
export const MAX_FIXTURE_ASSOCIATIONS = 100_000;
/** A 10,000-record fixture of a few properties each is about 2 MB; the cap leaves room for large ones. */
export const FIXTURE_MAX_BODY = 32 * 1024 * 1024;

/** A ref names a record inside one fixture document; it is not stored. */
const fixtureRef = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, "a ref is 1 to 100 letters, digits, _ . : or -");
const fixtureRecord = z.strictObject({
  ref: fixtureRef.optional(),
  properties: propertiesInput.prefault({}),
});
const fixtureAssociation = z.strictObject({
  from: fixtureRef,
  to: fixtureRef,
  /** A label of the pair (the account's USER_DEFINED ones, or the built-in "Primary"); absent: the default association. */
  label: z.string().min(1).max(200).optional(),
});
/** Timeline events, blog posts and subscriptions a fixture may hold (each a few statements per 500). */
export const MAX_FIXTURE_EVENTS = 50_000;
export const MAX_FIXTURE_POSTS = 1_000;
export const MAX_FIXTURE_SUBSCRIPTIONS = 100;

const templateId = z.union([z.string().regex(/^\d{1,15}$/), z.number().int().positive().max(Number.MAX_SAFE_INTEGER)], { error: "eventTemplateId must be a template id" }).transform(String);
/** An event of an app's timeline event template (the v3 event's fields) on a record of the document, named by its ref. */
const fixtureTimelineEvent = z.strictObject({
  eventTemplateId: templateId,
  ref: fixtureRef,
  id: z.string().min(1).max(512).optional(),
  timestamp: z.iso.datetime({ offset: true, error: "timestamp must be an ISO 8601 date-time" }).optional(),
  tokens: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).prefault({}),
  extraData: z.unknown().optional(),
  timelineIFrame: iframeV3.optional(),
});
/** A blog post as `POST /cms/v3/blogs/posts` takes it, plus its `state` and an optional ref (answered with the post's id). */
const fixtureBlogPost = z.strictObject({
  ...createPostV3Body.shape,
  ref: fixtureRef.optional(),
  state: z.enum(["DRAFT", "SCHEDULED", "PUBLISHED"], { error: "state must be DRAFT, SCHEDULED or PUBLISHED" }).optional(),
});
/** A webhook subscription of an app installed in the account, as `POST /webhooks/v3/{appId}/subscriptions` takes it (its eventType named subscriptionType). */
const fixtureSubscription = z
  .strictObject({
    appId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
    subscriptionType: z.string(),
    propertyName: z.string().optional(),
    objectTypeId: z.string().optional(),
    active: z.boolean().optional(),
  })
  .superRefine((s, ctx) => {
    const checked = createSubscriptionBody.safeParse({ eventType: s.subscriptionType, propertyName: s.propertyName, objectTypeId: s.objectTypeId, active: s.active });
    for (const i of checked.error?.issues ?? []) {
      const field = i.path[0] === "eventType" ? "subscriptionType" : i.path[0];
      ctx.addIssue({ code: "custom", path: field === undefined ? [] : [field], message: i.message.replace(/^eventType/, "subscriptionType") });
    }
  });
export type FixtureSubscription = z.output<typeof fixtureSubscription>;
export type FixtureBlogPost = z.output<typeof fixtureBlogPost>;
export type FixtureTimelineEvent = z.output<typeof fixtureTimelineEvent>;

/**
 * A fixture document: records by object type (a built-in type, or one of the account's custom types by any
 * of its names), associations between them by ref. Checked whole before anything is written.
 */
export const fixtureBody = z.strictObject({
  records: z.record(z.string().min(1).max(110), z.array(fixtureRecord)).prefault({}),
  associations: z.array(fixtureAssociation).max(MAX_FIXTURE_ASSOCIATIONS, `at most ${MAX_FIXTURE_ASSOCIATIONS} associations`).prefault([]),
  timelineEvents: z.array(fixtureTimelineEvent).max(MAX_FIXTURE_EVENTS, `at most ${MAX_FIXTURE_EVENTS} timeline events`).prefault([]),
  blogPosts: z.array(fixtureBlogPost).max(MAX_FIXTURE_POSTS, `at most ${MAX_FIXTURE_POSTS} blog posts`).prefault([]),
  subscriptions: z.array(fixtureSubscription).max(MAX_FIXTURE_SUBSCRIPTIONS, `at most ${MAX_FIXTURE_SUBSCRIPTIONS} subscriptions`).prefault([]),
});
export type FixtureInput = z.output<typeof fixtureBody>;
/**
 * What the route reads before the service checks the document whole (a JSON object; the service names
 * every problem by its JSON path, `records.contacts[3].properties.email`).
 */
export const fixtureEnvelope = z.looseObject({
  records: z.unknown().optional().meta({ description: "Records by object type (a built-in type, or a custom type by any of its names): {\"contacts\": [{\"ref\": \"ada\", \"properties\": {...}}]}" }),
  associations: z.unknown().optional().meta({ description: "[{from, to, label?}]: refs of records of the document; label a label of the pair" }),
  timelineEvents: z.unknown().optional().meta({ description: "[{eventTemplateId, ref, id?, timestamp?, tokens?, extraData?, timelineIFrame?}]: events of an installed app's template on the record of the ref" }),
  blogPosts: z.unknown().optional().meta({ description: "[{name, slug?, state?, publishDate?, ...}]: blog posts as POST /cms/v3/blogs/posts takes them, with their state" }),
  subscriptions: z.unknown().optional().meta({ description: "[{appId?, subscriptionType, propertyName?, objectTypeId?, active?}]: webhook subscriptions of an app installed in the account" }),
});
export const fixtureView = z.object({
  /** Each ref's record id. */
  refs: z.record(z.string(), z.string()),
  /** Records made by object type (as the document names it), and `associations`. */
  counts: z.record(z.string(), z.number().int()),
});

/** What an import made: rows by table, and the lines it read but does not import, by table. */
export const importView = z.object({
  portalId: z.number().int(),
  importedAt: z.string(),
  from: z.object({ portalId: z.number().int(), exportedAt: z.string() }),
  counts: z.record(z.string(), z.number().int()),
  /** The new id of each exported user, owner, team, private app and install, by table and exported id. */
  ids: z.record(z.string(), z.record(z.string(), z.number().int())),
  skipped: z.record(z.string(), z.number().int()),
});

/** Ten years in one step: a test's schedules (abandonment, token expiry, retries, posts) are far shorter. */
export const MAX_ADVANCE_SECONDS = 10 * 365 * 86_400;
/** `POST /admin/v1/accounts/{portalId}/clock`: one of advanceSeconds (forward by that much) or now (forward to that time). */
export const clockBody = z
  .strictObject({
    advanceSeconds: z
      .number({ error: "advanceSeconds must be a number" })
      .int("advanceSeconds must be an integer")
      .min(0, "advanceSeconds must be 0 or more: the clock only moves forward")
      .max(MAX_ADVANCE_SECONDS, `advanceSeconds is at most ${MAX_ADVANCE_SECONDS}`)
      .optional(),
    now: z.iso.datetime({ offset: true, error: "now must be an ISO-8601 date-time, such as 2030-01-01T00:00:00Z" }).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.advanceSeconds !== undefined && b.now !== undefined) ctx.addIssue({ code: "custom", message: "Give advanceSeconds or now, not both", path: ["now"] });
    if (b.advanceSeconds === undefined && b.now === undefined) ctx.addIssue({ code: "custom", message: "Give advanceSeconds (seconds to move forward) or now (an ISO-8601 time to move to)", path: ["advanceSeconds"] });
  });
export const clockView = z.object({
  now: z.string().describe("The account's current time (ISO-8601)"),
  offsetSeconds: z.number().describe("How far the account's time runs ahead of real time, in seconds (ms precision)"),
});
