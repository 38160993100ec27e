/**
 * @module zod schemas of `/crm/v3/pipelines/{objectType}` (docs/reference/pipelines.md), as
 * @hubspot/api-client's pipelines models (Pipeline, PipelineInput, PipelinePatchInput, PipelineStage,
 * PipelineStageInput, PipelineStagePatchInput, PublicAuditInfo) describe them.
 */
import { z } from "zod";
import { PIPELINE_TYPES, type PipelineType } from "../db/tables/pipelines";
import { booleanQuery } from "../lib/paging";

/** At most this many live pipelines per type, and live stages per pipeline (the real service's stage limit is 100). */
export const MAX_PIPELINES = 100;
export const MAX_STAGES = 100;
export const LABEL_MAX = 100;

/** The real service's type ids of the two types, which clients may send instead of the names. */
const TYPE_IDS: Record<string, PipelineType> = { "0-3": "deals", "0-5": "tickets" };

export const pipelineType = z
  .string()
  .transform((v) => TYPE_IDS[v] ?? v)
  .pipe(z.enum(PIPELINE_TYPES, { error: "objectType must be deals or tickets (or 0-3, 0-5)" }));

/** A pipeline or stage id as the path carries it, decoded (ids are numeric strings or built-in names). */
const pathId = (name: string) =>
  z
    .string()
    .min(1)
    .max(300)
    .transform((raw, ctx) => {
      try {
        return decodeURIComponent(raw);
      } catch {
        ctx.addIssue({ code: "custom", message: `${name} is not a valid percent-encoded string` });
        return z.NEVER;
      }
    })
    .pipe(z.string().max(100, `${name}: at most 100 characters`));

export const typeParams = z.object({ objectType: pipelineType });
export const pipelineParams = typeParams.extend({ pipelineId: pathId("pipelineId") });
export const stageParams = pipelineParams.extend({ stageId: pathId("stageId") });

/**
 * Sent by the client on pipeline writes; read and not needed: records that use a stage always keep an
 * archive from happening here (docs/reference/pipelines.md "Archiving").
 */
export const validateQuery = z.object({
  validateReferencesBeforeDelete: booleanQuery("validateReferencesBeforeDelete").optional(),
  validateDealStageUsagesBeforeDelete: booleanQuery("validateDealStageUsagesBeforeDelete").optional(),
});

const label = z.string().trim().min(1, "label is required").max(LABEL_MAX, `label: at most ${LABEL_MAX} characters`);
const displayOrder = z.number({ error: "displayOrder must be a whole number" }).int("displayOrder must be a whole number").min(-1_000_000).max(1_000_000);
/** Metadata values are strings on the wire; numbers and booleans are taken as their string form. */
const metadata = z.record(z.string().max(100), z.union([z.string().max(100), z.number(), z.boolean()]).transform(String)).refine((m) => Object.keys(m).length <= 10, "metadata: at most 10 keys");

export const stageInput = z.object({ label, displayOrder, metadata: metadata.optional() });
export const stagePatch = z.object({ label: label.optional(), displayOrder: displayOrder.optional(), metadata: metadata.optional(), archived: z.boolean().optional() });
export const pipelineInput = z.object({
  label,
  displayOrder,
  stages: z.array(stageInput).min(1, "stages: a pipeline has at least one stage").max(MAX_STAGES, `stages: at most ${MAX_STAGES}`),
});
export const pipelinePatch = z.object({ label: label.optional(), displayOrder: displayOrder.optional(), archived: z.boolean().optional() });

export type StageInput = z.output<typeof stageInput>;
export type StagePatch = z.output<typeof stagePatch>;
export type PipelineInput = z.output<typeof pipelineInput>;
export type PipelinePatch = z.output<typeof pipelinePatch>;

export const stageResponse = z.object({
  id: z.string(),
  label: z.string(),
  displayOrder: z.number(),
  metadata: z.record(z.string(), z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  archived: z.boolean(),
  archivedAt: z.string().optional(),
  writePermissions: z.enum(["CRM_PERMISSIONS_ENFORCEMENT", "READ_ONLY"]),
});
export const pipelineResponse = z.object({
  id: z.string(),
  label: z.string(),
  displayOrder: z.number(),
  stages: z.array(stageResponse),
  createdAt: z.string(),
  updatedAt: z.string(),
  archived: z.boolean(),
  archivedAt: z.string().optional(),
});
export const pipelineList = z.object({ results: z.array(pipelineResponse) });
export const stageList = z.object({ results: z.array(stageResponse) });
export const auditList = z.object({
  results: z.array(
    z.object({
      identifier: z.string(),
      portalId: z.number(),
      action: z.enum(["CREATE", "UPDATE", "DELETE", "RESTORE"]),
      timestamp: z.string(),
      message: z.string().optional(),
      rawObject: z.record(z.string(), z.unknown()),
    }),
  ),
});
