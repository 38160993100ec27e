/**
 * @module An account's pipelines of one type as the API answers them, from three sources in one D1 round
 * trip: the built-in pipeline (src/services/pipelines/built-in.ts) unless the account stored it by
 * changing it, the pipelines the account created, and, for deals, the ecommerce bridge's pipeline once the
 * account has a store (its rows in `ecomm_pipelines`, which the bridge owns: read-only here).
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ecommPipelines, ecommPipelineStages } from "../../db/tables/ecomm";
import { pipelines, pipelineStages, type PipelineType } from "../../db/tables/pipelines";
import { notFound } from "../../lib/errors";
import { PIPELINE_ID, PIPELINE_STAGES } from "../ecomm/model";
import { BUILT_IN, BUILT_IN_AT } from "./built-in";

/**
 * Who may change a stage, in the real service's terms: the account (through this API), or nobody here
 * (`READ_ONLY`: the ecommerce pipeline, whose stage ids the bridge relies on).
 */
export type WritePermissions = "CRM_PERMISSIONS_ENFORCEMENT" | "READ_ONLY";

export interface Stage {
  id: string;
  label: string;
  displayOrder: number;
  metadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  archivedAt: number | null;
  writePermissions: WritePermissions;
}

export interface Pipeline {
  id: string;
  label: string;
  displayOrder: number;
  createdAt: number;
  updatedAt: number;
  archivedAt: number | null;
  /** Every stage, archived ones too, in display order. */
  stages: Stage[];
  /** `built-in` (stored once changed), `created` through this API, or the bridge's `ecommerce` one. */
  kind: "built-in" | "created" | "ecommerce";
  /** Whether the pipeline has rows in `pipelines`; a built-in one has none until it is changed. */
  stored: boolean;
}

/** The real service's order: by displayOrder, then by label. */
const byOrder = <T extends { displayOrder: number; label: string }>(a: T, b: T) => a.displayOrder - b.displayOrder || a.label.localeCompare(b.label);

export const liveStages = (p: Pipeline) => p.stages.filter((s) => s.archivedAt === null);

function builtIn(type: PipelineType): Pipeline {
  const b = BUILT_IN[type];
  return {
    id: b.id,
    label: b.label,
    displayOrder: 0,
    createdAt: BUILT_IN_AT,
    updatedAt: BUILT_IN_AT,
    archivedAt: null,
    stages: b.stages.map((s, i) => ({ ...s, metadata: { ...s.metadata }, displayOrder: i, createdAt: BUILT_IN_AT, updatedAt: BUILT_IN_AT, archivedAt: null, writePermissions: "CRM_PERMISSIONS_ENFORCEMENT" })),
    kind: "built-in",
    stored: false,
  };
}

const ECOMM_META = new Map<string, Record<string, string>>(PIPELINE_STAGES.map((s) => [s.stageId, { isClosed: String(s.isClosed), probability: s.probability }]));

/** Every pipeline of the type, archived ones too, in display order. */
export async function allPipelines(db: Db, portalId: number, type: PipelineType): Promise<Pipeline[]> {
  const [rows, stageRows, ecomm, ecommStages] = await db.batch([
    db.select().from(pipelines).where(and(eq(pipelines.portalId, portalId), eq(pipelines.objectType, type))),
    db.select().from(pipelineStages).where(and(eq(pipelineStages.portalId, portalId), eq(pipelineStages.objectType, type))),
    // The bridge's pipeline is a deal pipeline; for tickets these read nothing (portal_id = -1).
    db.select().from(ecommPipelines).where(eq(ecommPipelines.portalId, type === "deals" ? portalId : -1)),
    db.select().from(ecommPipelineStages).where(eq(ecommPipelineStages.portalId, type === "deals" ? portalId : -1)),
  ]);
  const stagesOf = new Map<string, Stage[]>();
  for (const s of stageRows) {
    const list = stagesOf.get(s.pipelineId) ?? [];
    list.push({ id: s.stageId, label: s.label, displayOrder: s.displayOrder, metadata: s.metadata, createdAt: s.createdAt, updatedAt: s.updatedAt, archivedAt: s.archivedAt, writePermissions: "CRM_PERMISSIONS_ENFORCEMENT" });
    stagesOf.set(s.pipelineId, list);
  }
  const out: Pipeline[] = rows.map((r) => ({
    id: r.pipelineId,
    label: r.label,
    displayOrder: r.displayOrder,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    archivedAt: r.archivedAt,
    stages: (stagesOf.get(r.pipelineId) ?? []).sort(byOrder),
    kind: r.pipelineId === BUILT_IN[type].id ? "built-in" : "created",
    stored: true,
  }));
  if (!out.some((p) => p.id === BUILT_IN[type].id)) out.push(builtIn(type));
  const e = ecomm[0];
  if (e) {
    out.push({
      id: e.pipelineId,
      label: e.label,
      // After the built-in pipeline, as the real service lists the ecommerce pipeline.
      displayOrder: 1,
      createdAt: e.createdAt,
      updatedAt: e.createdAt,
      archivedAt: null,
      stages: ecommStages
        .map((s) => ({ id: s.stageId, label: s.label, displayOrder: s.displayOrder, metadata: { ...(ECOMM_META.get(s.stageId) ?? {}) }, createdAt: e.createdAt, updatedAt: e.createdAt, archivedAt: null, writePermissions: "READ_ONLY" as const }))
        .sort(byOrder),
      kind: "ecommerce",
      stored: false,
    });
  }
  return out.sort(byOrder);
}

/** The live pipelines of the type, each with its live stages only. */
export async function livePipelines(db: Db, portalId: number, type: PipelineType): Promise<Pipeline[]> {
  return (await allPipelines(db, portalId, type)).filter((p) => p.archivedAt === null).map((p) => ({ ...p, stages: liveStages(p) }));
}

/** One pipeline of the account; an unknown id, another account's or (unless asked) an archived one is a 404. */
export function pick(all: Pipeline[], pipelineId: string, opts: { archived?: boolean } = {}): Pipeline {
  const p = all.find((x) => x.id === pipelineId);
  if (!p || (p.archivedAt !== null && !opts.archived)) throw notFound(`Pipeline ${pipelineId} was not found`);
  return p;
}

/** One stage of a pipeline; unknown or (unless asked) archived is a 404. */
export function pickStage(p: Pipeline, stageId: string, opts: { archived?: boolean } = {}): Stage {
  const s = p.stages.find((x) => x.id === stageId);
  if (!s || (s.archivedAt !== null && !opts.archived)) throw notFound(`Stage ${stageId} was not found in pipeline ${p.id}`);
  return s;
}

/** The pipeline that holds a stage id (stage ids are unique within an account's type), live ones only. */
export function pipelineOfStage(all: Pipeline[], stageId: string): Pipeline | undefined {
  return all.find((p) => p.archivedAt === null && p.stages.some((s) => s.id === stageId && s.archivedAt === null));
}

/** The ecommerce pipeline's id: writes to it are refused (the bridge owns it). */
export const ECOMMERCE_PIPELINE_ID = PIPELINE_ID;

/** A stage as people read it: its label and its pipeline's. */
export interface StageName {
  stageId: string;
  stage: string;
  pipelineId: string;
  pipeline: string;
}

/**
 * Every stage of the type's pipelines by id, archived ones too, for the web app's labels: a record keeps
 * its value when a write path that is not checked (the ecommerce sync, an account import) set it.
 */
export async function stageNames(db: Db, portalId: number, type: PipelineType): Promise<Map<string, StageName>> {
  const out = new Map<string, StageName>();
  for (const p of await allPipelines(db, portalId, type)) {
    for (const s of p.stages) out.set(s.id, { stageId: s.id, stage: s.label, pipelineId: p.id, pipeline: p.label });
  }
  return out;
}
