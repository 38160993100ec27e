/** @module Pipelines and stages in the API's shape (@hubspot/api-client's Pipeline and PipelineStage models). */
import type { z } from "zod";
import type { pipelineResponse, stageResponse } from "../../schemas/pipelines";
import { liveStages, type Pipeline, type Stage } from "./read";

const iso = (t: number) => new Date(t).toISOString();

export function presentStage(s: Stage): z.input<typeof stageResponse> {
  return {
    id: s.id,
    label: s.label,
    displayOrder: s.displayOrder,
    metadata: s.metadata,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    archived: s.archivedAt !== null,
    ...(s.archivedAt !== null ? { archivedAt: iso(s.archivedAt) } : {}),
    writePermissions: s.writePermissions,
  };
}

/** A pipeline with its live stages, as every read answers it. */
export function presentPipeline(p: Pipeline): z.input<typeof pipelineResponse> {
  return {
    id: p.id,
    label: p.label,
    displayOrder: p.displayOrder,
    stages: liveStages(p).map(presentStage),
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
    archived: p.archivedAt !== null,
    ...(p.archivedAt !== null ? { archivedAt: iso(p.archivedAt) } : {}),
  };
}
