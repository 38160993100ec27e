/**
 * @module zod schemas of the CRM card record-type API `/extensions/sales-objects/v1/object-types`.
 * Whether a URI may be called at all depends on the environment (loopback in tests), so that check runs in
 * the service with `outboundUriRules`; these schemas check the shape.
 */
import { z } from "zod";
import { CARD_OBJECT_TYPES, PROPERTY_DATA_TYPES, STATUS_OPTION_TYPES } from "../../db/tables/cards";

/** Card ids and app ids are positive integers; path and query values arrive as strings. */
const numericId = z.union([z.number(), z.string().regex(/^\d{1,15}$/, "must be a numeric id").transform(Number)]).pipe(z.number().int().positive());

const uri = z.string().min(1).max(2000);
const name = z.string().min(1).max(100).regex(/^[A-Za-z0-9_.-]+$/, "names are letters, digits, _ . -");

/** Keys of a data-fetch result that the service itself reads; a defined property cannot take them. */
export const RESERVED_RESULT_KEYS = ["objectId", "title", "link", "properties", "actions"];

const statusOption = z.object({
  type: z.enum(STATUS_OPTION_TYPES),
  label: z.string().min(1).max(200),
  name,
});

export const propertyDefinition = z
  .object({
    name: name.refine((n) => !RESERVED_RESULT_KEYS.includes(n), `name must not be one of ${RESERVED_RESULT_KEYS.join(", ")}`),
    label: z.string().min(1).max(200),
    dataType: z.enum(PROPERTY_DATA_TYPES),
    options: z.array(statusOption).min(1).max(50).optional(),
  })
  .superRefine((d, ctx) => {
    if (d.dataType === "STATUS" && !d.options) ctx.addIssue({ code: "custom", path: ["options"], message: "a STATUS property needs options" });
    if (d.dataType !== "STATUS" && d.options) ctx.addIssue({ code: "custom", path: ["options"], message: "only STATUS properties take options" });
    if (d.options && new Set(d.options.map((o) => o.name)).size !== d.options.length) {
      ctx.addIssue({ code: "custom", path: ["options"], message: "option names must be unique" });
    }
  });

const objectType = z.enum(CARD_OBJECT_TYPES);

const definitionFields = {
  baseUris: z.array(uri).min(1).max(10),
  dataFetchUri: uri,
  title: z.string().trim().min(1).max(200),
  propertyDefinitions: z.array(propertyDefinition).max(50),
  associatedHubSpotObjectTypes: z.array(objectType).min(1).max(CARD_OBJECT_TYPES.length),
  associatedHubSpotObjectTypeProperties: z.partialRecord(objectType, z.array(name).max(50)),
};

/** Rules across fields, shared by create and (after merging) update. */
function crossChecks(d: { propertyDefinitions: { name: string }[]; associatedHubSpotObjectTypes: string[]; associatedHubSpotObjectTypeProperties: Partial<Record<string, string[]>> }, ctx: z.RefinementCtx) {
  const names = d.propertyDefinitions.map((p) => p.name);
  if (new Set(names).size !== names.length) ctx.addIssue({ code: "custom", path: ["propertyDefinitions"], message: "property names must be unique" });
  if (new Set(d.associatedHubSpotObjectTypes).size !== d.associatedHubSpotObjectTypes.length) {
    ctx.addIssue({ code: "custom", path: ["associatedHubSpotObjectTypes"], message: "object types must be unique" });
  }
  for (const [type, props] of Object.entries(d.associatedHubSpotObjectTypeProperties)) {
    if (!d.associatedHubSpotObjectTypes.includes(type)) {
      ctx.addIssue({ code: "custom", path: ["associatedHubSpotObjectTypeProperties", type], message: `the card is not shown on ${type} records` });
    }
    if (props && new Set(props).size !== props.length) {
      ctx.addIssue({ code: "custom", path: ["associatedHubSpotObjectTypeProperties", type], message: "property names must be unique" });
    }
  }
}

const definitionObject = z.object({
  ...definitionFields,
  propertyDefinitions: definitionFields.propertyDefinitions.default([]),
  associatedHubSpotObjectTypeProperties: definitionFields.associatedHubSpotObjectTypeProperties.default({}),
});
export const definition = definitionObject.superRefine(crossChecks);
export type Definition = z.infer<typeof definition>;

export const createBody = definitionObject.extend({ applicationId: numericId }).superRefine(crossChecks);

/** PUT merges: fields left out keep their stored value; the merged definition is validated again. */
export const updateBody = z.object({ applicationId: numericId.optional(), ...definitionFields }).partial();
export type UpdateBody = z.infer<typeof updateBody>;

export const listQuery = z.object({ applicationId: numericId });
export const itemQuery = z.object({ applicationId: numericId.optional() });
export const itemParams = z.object({ objectTypeId: numericId });

export const recordTypeResponse = z.object({
  id: z.number().int(),
  applicationId: z.number().int(),
  baseUris: z.array(z.string()),
  dataFetchUri: z.string(),
  title: z.string(),
  propertyDefinitions: z.array(z.object({ name: z.string(), label: z.string(), dataType: z.string(), options: z.array(statusOption).optional() })),
  associatedHubSpotObjectTypes: z.array(z.string()),
  associatedHubSpotObjectTypeProperties: z.record(z.string(), z.array(z.string())),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export const listResponse = z.object({ results: z.array(recordTypeResponse) });
