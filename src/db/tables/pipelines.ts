/**
 * @module Pipelines and stages of deals and tickets (docs/reference/pipelines.md). The real service's
 * built-in pipelines (deals `default`, tickets `0`) live in code (src/services/pipelines/built-in.ts) and
 * get rows here only once an account changes them; pipelines and stages an account creates always have
 * rows. Each row has its own integer id from the database's id range (so moves never collide); a created
 * pipeline's or stage's API id is that number as a string, and a built-in one keeps its built-in id.
 * Nothing is ever deleted: archiving sets `archived_at`, which the audit and restores read.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** The object types that have pipelines here. */
export const PIPELINE_TYPES = ["deals", "tickets"] as const;
export type PipelineType = (typeof PIPELINE_TYPES)[number];

export const pipelines = sqliteTable(
  "pipelines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    objectType: text("object_type", { enum: PIPELINE_TYPES }).notNull(),
    /** The API id: a built-in id (`default`, `0`) or this row's id as a string. */
    pipelineId: text("pipeline_id").notNull(),
    label: text("label").notNull(),
    displayOrder: integer("display_order").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    archivedAt: integer("archived_at"),
  },
  (t) => [uniqueIndex("pipelines_key").on(t.portalId, t.objectType, t.pipelineId)],
);

export const pipelineStages = sqliteTable(
  "pipeline_stages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    objectType: text("object_type", { enum: PIPELINE_TYPES }).notNull(),
    pipelineId: text("pipeline_id").notNull(),
    /** The API id: a built-in id (`closedwon`, `1`) or this row's id as a string; unique in the account's type. */
    stageId: text("stage_id").notNull(),
    label: text("label").notNull(),
    displayOrder: integer("display_order").notNull(),
    /** The stage's metadata as the API answers it: strings only (`probability`, `isClosed`, `ticketState`). */
    metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    archivedAt: integer("archived_at"),
  },
  (t) => [uniqueIndex("pipeline_stages_key").on(t.portalId, t.objectType, t.stageId), index("pipeline_stages_pipeline").on(t.portalId, t.objectType, t.pipelineId)],
);

/** One change of a pipeline or stage (the audit routes): what was done and the object as it was after it. */
export const pipelineAudits = sqliteTable(
  "pipeline_audits",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    objectType: text("object_type", { enum: PIPELINE_TYPES }).notNull(),
    pipelineId: text("pipeline_id").notNull(),
    /** Null for a change of the pipeline itself. */
    stageId: text("stage_id"),
    /** CREATE, UPDATE, DELETE (archive) or RESTORE. */
    action: text("action").notNull(),
    at: integer("at").notNull(),
    raw: text("raw", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index("pipeline_audits_key").on(t.portalId, t.objectType, t.pipelineId, t.stageId, t.id)],
);
