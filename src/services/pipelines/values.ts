/**
 * @module Record values that name pipelines and stages: deals' `pipeline` / `dealstage` and tickets'
 * `hs_pipeline` / `hs_pipeline_stage`. A write's check (run by src/services/crm/values.ts before anything
 * is written) and the options the properties API lists, both from the account's live pipelines, so what a
 * read says is allowed is what a write accepts.
 *
 * A stage is checked against the pipeline the record will be in: the one the write names, else (an
 * update) the record's current one, else the type's built-in pipeline, where the real service puts a
 * record written without one. A write that moves a record to another pipeline without a stage is refused
 * when the record's stage is not in it, so no record is left in a stage of another pipeline.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmObjects, type ObjectType, type PropertyOption } from "../../db/tables/crm";
import { PIPELINE_TYPES, type PipelineType } from "../../db/tables/pipelines";
import type { ErrorDetail } from "../../lib/errors";
import { BUILT_IN, PIPELINE_PROPERTIES } from "./built-in";
import { livePipelines, pipelineOfStage } from "./read";

export const isPipelineType = (type: ObjectType): type is PipelineType => (PIPELINE_TYPES as readonly string[]).includes(type);

/** The shape every value check reports a bad value in (src/services/crm/values.ts invalidValue). */
export type InvalidValue = (at: string, name: string, value: string, allowed: string[]) => ErrorDetail;

interface Write {
  properties: Record<string, string>;
  at: string;
  id?: number;
}

/** The pipeline and stage updated records hold now, for the writes that leave one of them out. */
async function currentOf(db: Db, portalId: number, type: PipelineType, ids: number[]) {
  const { pipeline, stage } = PIPELINE_PROPERTIES[type];
  const rows = await db
    .select({ id: crmObjects.id, pipeline: sql<string | null>`${crmObjects.properties} ->> ${`$.${pipeline}`}`, stage: sql<string | null>`${crmObjects.properties} ->> ${`$.${stage}`}` })
    .from(crmObjects)
    .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, type), sql`${crmObjects.id} in (select value from json_each(${JSON.stringify(ids)}))`));
  return new Map(rows.map((r) => [r.id, r]));
}

export async function pipelineValueErrors(db: Db, portalId: number, type: ObjectType, writes: Write[], invalid: InvalidValue): Promise<ErrorDetail[]> {
  if (!isPipelineType(type)) return [];
  const names = PIPELINE_PROPERTIES[type];
  // An empty string clears the property; only values are checked.
  const touched = writes.filter((w) => w.properties[names.pipeline] || w.properties[names.stage]);
  if (touched.length === 0) return [];
  const all = await livePipelines(db, portalId, type);
  const partial = touched.filter((w) => w.id !== undefined && !(w.properties[names.pipeline] && w.properties[names.stage])).map((w) => w.id!);
  const current = partial.length ? await currentOf(db, portalId, type, partial) : new Map<number, { pipeline: string | null; stage: string | null }>();
  const errors: ErrorDetail[] = [];
  for (const w of touched) {
    const given = w.properties[names.pipeline] || undefined;
    const stage = w.properties[names.stage] || undefined;
    const now = w.id !== undefined ? current.get(w.id) : undefined;
    const pipelineId = given ?? (now?.pipeline || BUILT_IN[type].id);
    const pipeline = all.find((p) => p.id === pipelineId);
    if (given !== undefined && !pipeline) {
      errors.push(invalid(w.at, names.pipeline, given, all.map((p) => p.id)));
      continue;
    }
    const stages = pipeline?.stages.map((s) => s.id) ?? [];
    if (stage !== undefined && !stages.includes(stage)) {
      const detail = invalid(w.at, names.stage, stage, stages);
      const home = pipelineOfStage(all, stage);
      errors.push(home ? { ...detail, message: `${JSON.stringify(stage)} is a stage of pipeline ${home.id}, not of pipeline ${pipelineId}: send ${names.pipeline} ${home.id} with it, or one of ${stages.join(", ")}` } : detail);
    } else if (stage === undefined && given !== undefined && now?.stage && !stages.includes(now.stage)) {
      errors.push({
        ...invalid(w.at, names.pipeline, given, all.map((p) => p.id)),
        message: `the record's stage ${JSON.stringify(now.stage)} is not a stage of pipeline ${given}: send ${names.stage} with ${names.pipeline} (one of ${stages.join(", ")})`,
      });
    }
  }
  return errors;
}

export const coversPipelineProperty = (type: ObjectType, name: string) => isPipelineType(type) && (PIPELINE_PROPERTIES[type].pipeline === name || PIPELINE_PROPERTIES[type].stage === name);

/** The options of a pipeline property (the live pipelines) or a stage property (every live pipeline's live stages). */
export async function pipelineOptions(db: Db, portalId: number, type: ObjectType, name: string): Promise<PropertyOption[]> {
  if (!isPipelineType(type)) return [];
  const all = await livePipelines(db, portalId, type);
  if (PIPELINE_PROPERTIES[type].pipeline === name) return all.map((p) => ({ label: p.label, value: p.id, description: "", displayOrder: p.displayOrder, hidden: false }));
  return all.flatMap((p) => p.stages.map((s) => ({ label: s.label, value: s.id, description: `${p.label}`, displayOrder: s.displayOrder, hidden: false })));
}
