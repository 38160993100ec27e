/**
 * @module `/crm/v3/pipelines/{objectType}`: pipelines and stages of deals and tickets, and their audits
 * (docs/reference/pipelines.md), as @hubspot/api-client's PipelinesApi, PipelineStagesApi,
 * PipelineAuditsApi and PipelineStageAuditsApi call them. Deals pipelines take the deals scopes, tickets
 * pipelines `tickets`, as the records of the type do.
 */
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { route } from "../../http/route";
import type { Principal } from "../../lib/principal";
import { json, noContent } from "../../lib/http";
import { scopeFor } from "../../services/crm/records";
import { presentPipeline, presentStage } from "../../services/pipelines/present";
import { allPipelines, livePipelines, pick, pickStage } from "../../services/pipelines/read";
import * as write from "../../services/pipelines/write";
import type { PipelineType } from "../../db/tables/pipelines";
import * as s from "../../schemas/pipelines";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM pipelines";
const base = "/crm/v3/pipelines/:objectType";
const one = `${base}/:pipelineId`;
const stages = `${one}/stages`;
const stage = `${stages}/:stageId`;

/** The caller's account, once it holds the type's scope for the access. */
const allowed = (principal: Principal, type: PipelineType, access: "read" | "write") => {
  requireScopes(principal, [scopeFor(type, access)]);
  return portalOf(principal);
};

/**
 * The stage audit of PipelineStageAuditsApi.getAudit(objectType, stageId) leaves `{pipelineId}` in its
 * path unfilled (the client's generated code replaces only the other two), so that literal stands for
 * "whichever pipeline of the type holds the stage": stage ids are unique within an account's type.
 */
const UNFILLED = "{pipelineId}";

const ARCHIVE_400 = { description: "Invalid input, or the pipeline or stage is still used by records (VALIDATION_ERROR; context.objectIds names a few), or is read-only" };

export const pipelineRoutes = [
  route({
    method: "GET",
    path: base,
    summary: "List the type's live pipelines with their live stages",
    tag,
    auth: account,
    params: s.typeParams,
    responses: { 200: { description: "The pipelines, in display order", schema: s.pipelineList } },
    // objectType is a closed list (named or by type id): a wrong one is a 400.
    neverAnswers: [404],
    handler: async ({ db, principal, params }) => {
      const portalId = allowed(principal, params.objectType, "read");
      return json({ results: (await livePipelines(db, portalId, params.objectType)).map(presentPipeline) });
    },
  }),
  route({
    method: "POST",
    path: base,
    summary: "Create a pipeline with its stages",
    tag,
    auth: account,
    params: s.typeParams,
    body: s.pipelineInput,
    responses: { 201: { description: "Created", schema: s.pipelineResponse }, 409: { description: "A live pipeline of the type has that label (CONFLICT)" } },
    neverAnswers: [404],
    handler: async ({ db, principal, params, body, now }) => {
      const portalId = allowed(principal, params.objectType, "write");
      return json(presentPipeline(await write.createPipeline(db, portalId, params.objectType, body, now)), 201);
    },
  }),
  route({
    method: "GET",
    path: one,
    summary: "Read a pipeline",
    tag,
    auth: account,
    params: s.pipelineParams,
    responses: { 200: { description: "The pipeline", schema: s.pipelineResponse } },
    handler: async ({ db, principal, params }) => {
      const portalId = allowed(principal, params.objectType, "read");
      return json(presentPipeline(pick(await allPipelines(db, portalId, params.objectType), params.pipelineId)));
    },
  }),
  route({
    method: "PUT",
    path: one,
    summary: "Replace a pipeline and its stages (stages matched by label keep their ids)",
    tag,
    auth: account,
    params: s.pipelineParams,
    query: s.validateQuery,
    body: s.pipelineInput,
    responses: { 200: { description: "The pipeline", schema: s.pipelineResponse }, 400: ARCHIVE_400, 409: { description: "Another live pipeline of the type has that label (CONFLICT)" } },
    handler: async ({ db, principal, params, body, now }) => {
      const portalId = allowed(principal, params.objectType, "write");
      return json(presentPipeline(await write.replacePipeline(db, portalId, params.objectType, params.pipelineId, body, now)));
    },
  }),
  route({
    method: "PATCH",
    path: one,
    summary: "Update a pipeline's label or display order, or restore an archived one (archived: false)",
    tag,
    auth: account,
    params: s.pipelineParams,
    query: s.validateQuery,
    body: s.pipelinePatch,
    responses: { 200: { description: "The pipeline", schema: s.pipelineResponse }, 409: { description: "Another live pipeline of the type has that label (CONFLICT)" } },
    handler: async ({ db, principal, params, body, now }) => {
      const portalId = allowed(principal, params.objectType, "write");
      return json(presentPipeline(await write.updatePipeline(db, portalId, params.objectType, params.pipelineId, body, now)));
    },
  }),
  route({
    method: "DELETE",
    path: one,
    summary: "Archive a pipeline no live record uses",
    tag,
    auth: account,
    params: s.pipelineParams,
    query: s.validateQuery,
    responses: { 204: { description: "Archived" }, 400: ARCHIVE_400 },
    handler: async ({ db, principal, params, now }) => {
      const portalId = allowed(principal, params.objectType, "write");
      await write.archivePipeline(db, portalId, params.objectType, params.pipelineId, now);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: `${one}/audit`,
    summary: "The changes made to a pipeline, newest first",
    tag,
    auth: account,
    params: s.pipelineParams,
    responses: { 200: { description: "The audit entries", schema: s.auditList } },
    handler: async ({ db, principal, params }) => {
      const portalId = allowed(principal, params.objectType, "read");
      const p = pick(await allPipelines(db, portalId, params.objectType), params.pipelineId, { archived: true });
      return json({ results: await write.auditOf(db, portalId, params.objectType, p.id, null) });
    },
  }),
  route({
    method: "GET",
    path: stages,
    summary: "List a pipeline's live stages",
    tag,
    auth: account,
    params: s.pipelineParams,
    responses: { 200: { description: "The stages, in display order", schema: s.stageList } },
    handler: async ({ db, principal, params }) => {
      const portalId = allowed(principal, params.objectType, "read");
      const p = pick(await allPipelines(db, portalId, params.objectType), params.pipelineId);
      return json({ results: presentPipeline(p).stages });
    },
  }),
  route({
    method: "POST",
    path: stages,
    summary: "Add a stage to a pipeline",
    tag,
    auth: account,
    params: s.pipelineParams,
    body: s.stageInput,
    responses: { 201: { description: "Created", schema: s.stageResponse }, 409: { description: "The pipeline has a live stage with that label (CONFLICT)" } },
    handler: async ({ db, principal, params, body, now }) => {
      const portalId = allowed(principal, params.objectType, "write");
      return json(presentStage(await write.createStage(db, portalId, params.objectType, params.pipelineId, body, now)), 201);
    },
  }),
  route({
    method: "GET",
    path: stage,
    summary: "Read a stage",
    tag,
    auth: account,
    params: s.stageParams,
    responses: { 200: { description: "The stage", schema: s.stageResponse } },
    handler: async ({ db, principal, params }) => {
      const portalId = allowed(principal, params.objectType, "read");
      return json(presentStage(pickStage(pick(await allPipelines(db, portalId, params.objectType), params.pipelineId), params.stageId)));
    },
  }),
  route({
    method: "PUT",
    path: stage,
    summary: "Replace a stage's label, display order and metadata",
    tag,
    auth: account,
    params: s.stageParams,
    body: s.stageInput,
    responses: { 200: { description: "The stage", schema: s.stageResponse }, 409: { description: "Another live stage of the pipeline has that label (CONFLICT)" } },
    handler: async ({ db, principal, params, body, now }) => {
      const portalId = allowed(principal, params.objectType, "write");
      return json(presentStage(await write.changeStage(db, portalId, params.objectType, params.pipelineId, params.stageId, { replace: body }, now)));
    },
  }),
  route({
    method: "PATCH",
    path: stage,
    summary: "Update a stage, or restore an archived one (archived: false)",
    tag,
    auth: account,
    params: s.stageParams,
    body: s.stagePatch,
    responses: { 200: { description: "The stage", schema: s.stageResponse }, 409: { description: "Another live stage of the pipeline has that label (CONFLICT)" } },
    handler: async ({ db, principal, params, body, now }) => {
      const portalId = allowed(principal, params.objectType, "write");
      return json(presentStage(await write.changeStage(db, portalId, params.objectType, params.pipelineId, params.stageId, { patch: body }, now)));
    },
  }),
  route({
    method: "DELETE",
    path: stage,
    summary: "Archive a stage no live record is in",
    tag,
    auth: account,
    params: s.stageParams,
    responses: { 204: { description: "Archived" }, 400: ARCHIVE_400 },
    handler: async ({ db, principal, params, now }) => {
      const portalId = allowed(principal, params.objectType, "write");
      await write.archiveStage(db, portalId, params.objectType, params.pipelineId, params.stageId, now);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: `${stage}/audit`,
    summary: "The changes made to a stage, newest first",
    tag,
    auth: account,
    params: s.stageParams,
    responses: { 200: { description: "The audit entries", schema: s.auditList } },
    handler: async ({ db, principal, params }) => {
      const portalId = allowed(principal, params.objectType, "read");
      const all = await allPipelines(db, portalId, params.objectType);
      const p = params.pipelineId === UNFILLED ? all.find((x) => x.stages.some((st) => st.id === params.stageId)) : pick(all, params.pipelineId, { archived: true });
      const st = pickStage(p ?? pick(all, params.pipelineId), params.stageId, { archived: true });
      return json({ results: await write.auditOf(db, portalId, params.objectType, p!.id, st.id) });
    },
  }),
];
