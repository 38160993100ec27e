/**
 * @module zod schemas of CRM cards v3 (`/crm/v3/extensions/cards-dev/{appId}`): a v3 card definition is a v1
 * record type (services/cards/v3.ts maps it). Each part is checked by the v1 rule for the v1 field it maps to.
 */
import { z } from "zod";
import { PROPERTY_DATA_TYPES, STATUS_OPTION_TYPES } from "../../db/tables/cards";
import { RESERVED_RESULT_KEYS } from "./types";
import { idParam } from "../crm/objects";

export const V3_CARD_OBJECT_TYPES = ["contacts", "companies", "deals", "tickets"] as const;

const uri = z.string().min(1).max(2000);
const name = z.string().min(1).max(100).regex(/^[A-Za-z0-9_.-]+$/, "names are letters, digits, _ . -");

const objectTypeBody = z.object({
  name: z.enum(V3_CARD_OBJECT_TYPES, { error: `name must be one of ${V3_CARD_OBJECT_TYPES.join(", ")}` }),
  propertiesToSend: z.array(name).max(50).default([]),
});

const fetchFields = {
  targetUrl: uri,
  objectTypes: z
    .array(objectTypeBody)
    .min(1, "objectTypes must name at least one object type")
    .max(V3_CARD_OBJECT_TYPES.length)
    .refine((list) => new Set(list.map((o) => o.name)).size === list.length, { error: "object types must be unique" }),
  // Serverless functions do not exist here: a card is fetched from its targetUrl.
  cardType: z.literal("EXTERNAL", { error: "cardType must be EXTERNAL (serverless cards are not supported)" }).optional(),
  serverlessFunction: z.undefined({ error: "serverlessFunction is not supported" }).optional(),
};

/** The client's model makes `options` required, so non-STATUS properties arrive with `options: []`. */
const displayProperty = z
  .object({
    name: name.refine((n) => !RESERVED_RESULT_KEYS.includes(n), `name must not be one of ${RESERVED_RESULT_KEYS.join(", ")}`),
    label: z.string().min(1).max(200),
    dataType: z.enum(PROPERTY_DATA_TYPES, { error: `dataType must be one of ${PROPERTY_DATA_TYPES.join(", ")}` }),
    options: z.array(z.object({ name, label: z.string().min(1).max(200), type: z.enum(STATUS_OPTION_TYPES) })).max(50).default([]),
  })
  .superRefine((p, ctx) => {
    if (p.dataType === "STATUS" && p.options.length === 0) ctx.addIssue({ code: "custom", path: ["options"], message: "a STATUS property needs options" });
    if (p.dataType !== "STATUS" && p.options.length > 0) ctx.addIssue({ code: "custom", path: ["options"], message: "only STATUS properties take options" });
    if (new Set(p.options.map((o) => o.name)).size !== p.options.length) ctx.addIssue({ code: "custom", path: ["options"], message: "option names must be unique" });
  });

const display = z.object({
  properties: z
    .array(displayProperty)
    .max(50)
    .refine((list) => new Set(list.map((p) => p.name)).size === list.length, { error: "property names must be unique" }),
});
const actions = z.object({ baseUrls: z.array(uri).min(1, "baseUrls must hold at least one URL").max(10) });
const title = z.string().trim().min(1, "title is required").max(200);

export const createCardBody = z.object({ title, fetch: z.object(fetchFields), display, actions });
export type CardV3 = z.output<typeof createCardBody>;

/** Every part optional; `fetch` merges field by field into the stored one, then the whole card is checked again. */
export const patchCardBody = z.object({
  title: title.optional(),
  fetch: z.object(fetchFields).partial().optional(),
  display: display.optional(),
  actions: actions.optional(),
});
export type CardV3Patch = z.output<typeof patchCardBody>;

export const appParams = z.object({ appId: idParam });
export const cardParams = appParams.extend({ cardId: idParam });

const displayOut = z.object({
  properties: z.array(z.object({ name: z.string(), label: z.string(), dataType: z.string(), options: z.array(z.object({ name: z.string(), label: z.string(), type: z.string() })) })),
});
export const cardResponse = z.object({
  id: z.string(),
  title: z.string(),
  fetch: z.object({ targetUrl: z.string(), objectTypes: z.array(z.object({ name: z.enum(V3_CARD_OBJECT_TYPES), propertiesToSend: z.array(z.string()) })), cardType: z.literal("EXTERNAL") }),
  display: displayOut,
  actions: z.object({ baseUrls: z.array(z.string()) }),
  createdAt: z.string(),
  updatedAt: z.string(),
  auditHistory: z.array(
    z.object({ actionType: z.enum(["CREATE", "UPDATE"]), applicationId: z.number(), authSource: z.literal("APP"), changedAt: z.number(), objectTypeId: z.number(), initiatingUserId: z.number() }),
  ),
});
export const cardList = z.object({ results: z.array(cardResponse) });
export const sampleResponse = z.looseObject({ responseVersion: z.literal("v3"), cardLabel: z.string(), sections: z.array(z.looseObject({ id: z.string(), title: z.string() })) });
