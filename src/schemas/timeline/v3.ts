/**
 * @module zod schemas of timeline v3 (`/integrators/timeline/v3`): templates are the v1 event types, tokens
 * their properties, events the v1 events (services/timeline/v3.ts maps them). Names and limits are v1's.
 */
import { z } from "zod";
import { idParam } from "../crm/objects";
import { eventParams as v1EventParams, MAX_BATCH_EVENTS, createPropertyBody } from "./events";
import { MAX_PROPERTIES_PER_TYPE } from "./events";

export const V3_OBJECT_TYPES = ["contacts", "companies", "deals"] as const;
export const TOKEN_TYPES = ["string", "number", "date", "enumeration"] as const;

export const appParams = z.object({ appId: idParam });
export const templateParams = appParams.extend({ eventTemplateId: idParam });
/** v1's property name rule: a name with `.` would read as a path in the templates (docs/reference/timeline.md). */
const tokenName = createPropertyBody.in.shape.name;
export const tokenParams = templateParams.extend({ tokenName: z.string().max(100).pipe(tokenName) });

const option = z.object({ label: z.string().min(1).max(255), value: z.string().min(1).max(255) });
const options = z
  .array(option)
  .max(1000)
  .refine((list) => new Set(list.map((o) => o.value)).size === list.length, { error: "option values must be unique" });
/** v1's objectProperty rule (no email, hs_object_id, createdate, lastmodifieddate). */
const objectPropertyName = createPropertyBody.in.shape.objectProperty;

const tokenFields = { label: z.string().min(1, "label is required").max(255), options: options.optional(), objectPropertyName };

export const tokenBody = z
  .object({
    name: tokenName,
    type: z.enum(TOKEN_TYPES, { error: `type must be one of ${TOKEN_TYPES.join(", ")}` }),
    ...tokenFields,
    createdAt: z.unknown().optional(),
    updatedAt: z.unknown().optional(),
  })
  .refine((t) => t.type !== "enumeration" || (t.options?.length ?? 0) > 0, { error: "options are required for an enumeration token", path: ["options"] });
export type TokenInput = z.infer<typeof tokenBody>;

export const tokenUpdateBody = z.object(tokenFields);
export type TokenUpdate = z.infer<typeof tokenUpdateBody>;

const tokens = z
  .array(tokenBody)
  .max(MAX_PROPERTIES_PER_TYPE, `at most ${MAX_PROPERTIES_PER_TYPE} tokens per template`)
  .refine((list) => new Set(list.map((t) => t.name)).size === list.length, { error: "token names must be unique" });

const templateText = z.string().max(65_536).nullable().optional();
const templateName = z.string().trim().min(1, "name is required").max(255);

export const createTemplateBody = z.object({
  name: templateName,
  objectType: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(V3_OBJECT_TYPES, { error: `objectType must be one of ${V3_OBJECT_TYPES.join(", ")}` })),
  headerTemplate: templateText,
  detailTemplate: templateText,
  tokens: tokens.default([]),
});
export type TemplateCreate = z.infer<typeof createTemplateBody>;

/** PUT replaces the template's tokens with the list sent (the client's model requires it). */
export const updateTemplateBody = z.object({
  id: z.string().regex(/^\d{1,15}$/, "id must be the template's id").optional(),
  name: templateName,
  headerTemplate: templateText,
  detailTemplate: templateText,
  tokens,
});
export type TemplateUpdate = z.infer<typeof updateTemplateBody>;

const tokenResponse = z.object({
  name: z.string(),
  label: z.string(),
  type: z.enum(TOKEN_TYPES),
  options: z.array(option).optional(),
  objectPropertyName: z.string().optional(),
  createdAt: z.string(),
});
export const templateResponse = z.object({
  id: z.string(),
  name: z.string(),
  objectType: z.enum(V3_OBJECT_TYPES),
  headerTemplate: z.string().optional(),
  detailTemplate: z.string().optional(),
  tokens: z.array(tokenResponse),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export { tokenResponse };
export const templateList = z.object({ results: z.array(templateResponse) });

// ---------------------------------------------------------------------------------------------------------
// Events

const isoDate = z.iso.datetime({ offset: true, error: "timestamp must be an ISO 8601 date-time" });

export const iframeV3 = z.object({
  linkLabel: z.string().min(1).max(255),
  headerLabel: z.string().min(1).max(255),
  url: z.url({ protocol: /^https?$/, error: "timelineIFrame.url must be an http(s) URL" }).max(2048),
  width: z.number().int().min(1).max(10_000),
  height: z.number().int().min(1).max(10_000),
});

const email = z.email({ pattern: z.regexes.html5Email, error: "must be a valid email address" }).max(254);

export const eventV3Body = z.object({
  eventTemplateId: z.string().regex(/^\d{1,15}$/, "eventTemplateId must be a template id"),
  id: z.string().min(1).max(512).optional(),
  email: email.optional(),
  objectId: z.string().regex(/^\d{1,15}$/, "objectId must be a numeric id").optional(),
  utk: z.string().min(1).max(256).optional(),
  /** The domain of the utk cookie: accepted, not stored (docs/reference/timeline.md). */
  domain: z.string().max(255).optional(),
  timestamp: isoDate.optional(),
  tokens: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  extraData: z.unknown().optional(),
  timelineIFrame: iframeV3.optional(),
});
export type EventV3Input = z.infer<typeof eventV3Body>;

export const batchEventsBody = z.object({
  inputs: z
    .array(eventV3Body)
    .min(1, "inputs must hold at least one event")
    .max(MAX_BATCH_EVENTS, `at most ${MAX_BATCH_EVENTS} events per batch`),
});

export const eventParams = v1EventParams.omit({ appId: true, eventTypeId: true }).extend({ eventTemplateId: idParam });
export const renderQuery = z.object({ detail: z.enum(["true", "false"], { error: "detail must be true or false" }).default("false") });

export const eventV3Response = z.object({
  id: z.string(),
  eventTemplateId: z.string(),
  objectType: z.enum(V3_OBJECT_TYPES),
  objectId: z.string().optional(),
  email: z.string().optional(),
  utk: z.string().optional(),
  timestamp: z.string(),
  tokens: z.record(z.string(), z.string()),
  extraData: z.unknown().optional(),
  timelineIFrame: iframeV3.optional(),
  createdAt: z.string(),
});

const batchError = z.object({
  status: z.literal("error"),
  category: z.string(),
  message: z.string(),
  context: z.record(z.string(), z.array(z.string())),
  errors: z.array(z.record(z.string(), z.unknown())),
  links: z.record(z.string(), z.string()),
});
export const batchResponse = z.object({
  status: z.literal("COMPLETE"),
  results: z.array(eventV3Response),
  startedAt: z.string(),
  completedAt: z.string(),
  numErrors: z.number().int().optional(),
  errors: z.array(batchError).optional(),
});
export const detailResponse = z.object({ details: z.string() });
