/**
 * @module Changes to pipelines and stages (docs/reference/pipelines.md). Each change is one db.batch: a
 * built-in pipeline the account has not changed yet is stored first (its rows, inserted only if absent, so
 * two first changes at once store it once), then the change, then its audit row. Created pipelines and
 * stages take their ids from the database's id range (`newId`), and the API id is that number as a string.
 *
 * Rules, each the real service's: deal stages need `metadata.probability` (0.0 to 1.0); ticket stages take
 * `ticketState` OPEN or CLOSED; stage labels are unique within a pipeline and pipeline labels within a
 * type; a pipeline keeps at least one stage; `archived` in a PATCH only restores. And this service's:
 * a stage or pipeline that live records use is never archived (the 400 names a few of them), the built-in
 * pipeline is never archived (records written without a pipeline are in it), and the ecommerce pipeline is
 * read-only (the bridge relies on its stage ids).
 */
import { and, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { newId, type IdTable } from "../../db/id-ranges";
import { crmObjects } from "../../db/tables/crm";
import { pipelineAudits, pipelines, pipelineStages, type PipelineType } from "../../db/tables/pipelines";
import { badRequest, conflict, type ErrorDetail } from "../../lib/errors";
import { MAX_PIPELINES, MAX_STAGES, type PipelineInput, type PipelinePatch, type StageInput, type StagePatch } from "../../schemas/pipelines";
import { BUILT_IN, PIPELINE_PROPERTIES } from "./built-in";
import { allPipelines, liveStages, pick, pickStage, type Pipeline, type Stage } from "./read";

type Statement = BatchItem<"sqlite">;
type Action = "CREATE" | "UPDATE" | "DELETE" | "RESTORE";

/** The id the last insert into `table` took (its counter, moved by the id-range trigger), as text. */
/** One db.batch of statements built as a list (the batch's type wants a non-empty tuple). */
const run = (db: Db, statements: Statement[]) => db.batch(statements as [Statement, ...Statement[]]);

const lastId = (table: IdTable): SQL => sql.raw(`(select cast(seq as text) from id_sequences where name = '${table}')`);
const newTextId = (table: IdTable, offset = 0): SQL => sql`cast(${newId(table, offset)} as text)`;

const field = (at: string, name: string, message: string, code = "INVALID_VALUE"): ErrorDetail => ({ message, code, in: "body", context: { propertyName: [`${at}${name}`] } });
const fail = (errors: ErrorDetail[]) => badRequest(errors.map((e) => e.message).join("; "), { errors });

const PROBABILITY = /^(0(\.\d{1,6})?|1(\.0{1,6})?|\.\d{1,6})$/;

/**
 * A stage's metadata as stored: the given keys over `base` (a PATCH keeps what it does not send), checked
 * for the type. Deals: `probability` (required, 0.0 to 1.0) and `isClosed` (`true`/`false`, default
 * false). Tickets: `ticketState` (OPEN or CLOSED, default OPEN). Another key is refused, so a typo is not
 * stored silently.
 */
function stageMetadata(type: PipelineType, given: Record<string, string> | undefined, at: string, base: Record<string, string> = {}): { metadata: Record<string, string>; errors: ErrorDetail[] } {
  const m = { ...base, ...(given ?? {}) };
  const errors: ErrorDetail[] = [];
  const allowed = type === "deals" ? ["probability", "isClosed"] : ["ticketState"];
  for (const key of Object.keys(m)) {
    if (!allowed.includes(key)) errors.push(field(at, `metadata.${key}`, `metadata.${key} is not a metadata key of ${type} stages (${allowed.join(", ")})`));
  }
  if (type === "deals") {
    if (m.probability === undefined) errors.push(field(at, "metadata.probability", "metadata.probability is required for deal stages: a number from 0.0 to 1.0", "REQUIRED_FIELD"));
    else if (!PROBABILITY.test(m.probability)) errors.push(field(at, "metadata.probability", `metadata.probability must be a number from 0.0 to 1.0, not ${JSON.stringify(m.probability)}`));
    m.isClosed ??= "false";
    if (m.isClosed !== "true" && m.isClosed !== "false") errors.push(field(at, "metadata.isClosed", `metadata.isClosed must be true or false, not ${JSON.stringify(m.isClosed)}`));
  } else {
    m.ticketState ??= "OPEN";
    if (m.ticketState !== "OPEN" && m.ticketState !== "CLOSED") errors.push(field(at, "metadata.ticketState", `metadata.ticketState must be OPEN or CLOSED, not ${JSON.stringify(m.ticketState)}`));
  }
  return { metadata: m, errors };
}

const sameLabel = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function writable(p: Pipeline): void {
  if (p.kind === "ecommerce") throw badRequest(`Pipeline ${p.id} is the ecommerce bridge's pipeline: it is read-only through this API`);
}

function uniquePipelineLabel(all: Pipeline[], label: string, except?: string): void {
  const other = all.find((p) => p.archivedAt === null && p.id !== except && sameLabel(p.label, label));
  if (other) throw conflict(`A pipeline labelled ${JSON.stringify(label)} exists: ${other.id}`);
}

function uniqueStageLabel(p: Pipeline, label: string, except?: string): void {
  const other = liveStages(p).find((s) => s.id !== except && sameLabel(s.label, label));
  if (other) throw conflict(`Pipeline ${p.id} has a stage labelled ${JSON.stringify(label)}: ${other.id}`);
}

/** The rows of a built-in pipeline the account has not stored yet (none once it has). */
function materialize(db: Db, portalId: number, type: PipelineType, p: Pipeline): Statement[] {
  if (p.stored || p.kind !== "built-in") return [];
  return [
    db
      .insert(pipelines)
      .values({ id: newId("pipelines"), portalId, objectType: type, pipelineId: p.id, label: p.label, displayOrder: p.displayOrder, createdAt: p.createdAt, updatedAt: p.updatedAt })
      .onConflictDoNothing(),
    db
      .insert(pipelineStages)
      .values(
        p.stages.map((s, i) => ({
          id: newId("pipeline_stages", i),
          portalId,
          objectType: type,
          pipelineId: p.id,
          stageId: s.id,
          label: s.label,
          displayOrder: s.displayOrder,
          metadata: s.metadata,
          createdAt: s.createdAt,
          updatedAt: s.updatedAt,
          archivedAt: s.archivedAt,
        })),
      )
      .onConflictDoNothing(),
  ];
}

function audit(db: Db, portalId: number, type: PipelineType, pipelineId: string | SQL, stageId: string | SQL | null, action: Action, raw: Record<string, unknown>, now: number, idOf?: SQL): Statement {
  return db.insert(pipelineAudits).values({
    id: newId("pipeline_audits"),
    portalId,
    objectType: type,
    pipelineId,
    stageId,
    action,
    at: now,
    // A created object's id is known only inside the batch: set into the JSON there.
    raw: idOf ? sql`json_set(${JSON.stringify(raw)}, '$.id', ${idOf})` : raw,
  });
}

const pipelineRow = (portalId: number, type: PipelineType, id: string) => and(eq(pipelines.portalId, portalId), eq(pipelines.objectType, type), eq(pipelines.pipelineId, id));
const stageRow = (portalId: number, type: PipelineType, id: string) => and(eq(pipelineStages.portalId, portalId), eq(pipelineStages.objectType, type), eq(pipelineStages.stageId, id));

/**
 * A few live records of the type in one of `stageIds` (or, with `pipelineId`, in that pipeline): archiving
 * refuses while any remain. Reads the account's records of the type (the `crm_objects_list` index) and
 * stops at the sixth match.
 */
async function recordsUsing(db: Db, portalId: number, type: PipelineType, stageIds: string[], pipelineId?: string): Promise<number[]> {
  const { pipeline, stage } = PIPELINE_PROPERTIES[type];
  const inStages = sql`${crmObjects.properties} ->> ${`$.${stage}`} in (select value from json_each(${JSON.stringify(stageIds)}))`;
  const rows = await db
    .select({ id: crmObjects.id })
    .from(crmObjects)
    .where(
      and(
        eq(crmObjects.portalId, portalId),
        eq(crmObjects.objectType, type),
        eq(crmObjects.archived, false),
        pipelineId === undefined ? inStages : or(inStages, sql`${crmObjects.properties} ->> ${`$.${pipeline}`} = ${pipelineId}`),
      ),
    )
    .limit(6);
  return rows.map((r) => r.id);
}

async function refuseIfUsed(db: Db, portalId: number, type: PipelineType, what: string, stageIds: string[], pipelineId?: string): Promise<void> {
  const ids = await recordsUsing(db, portalId, type, stageIds, pipelineId);
  if (ids.length === 0) return;
  const shown = ids.slice(0, 5).join(", ") + (ids.length > 5 ? ", …" : "");
  throw badRequest(`${what} is used by ${type} ${shown}: move them to another ${pipelineId === undefined ? "stage" : "pipeline"} before archiving it`, { context: { objectIds: ids.slice(0, 5).map(String) } });
}

/** Checks a body's stages: metadata per type, and labels unique within the body. */
function checkStages(type: PipelineType, stages: StageInput[]): { metadata: Record<string, string>[] } {
  const errors: ErrorDetail[] = [];
  const metadata = stages.map((s, i) => {
    const r = stageMetadata(type, s.metadata, `stages.${i}.`);
    errors.push(...r.errors);
    return r.metadata;
  });
  stages.forEach((s, i) => {
    if (stages.findIndex((o) => sameLabel(o.label, s.label)) < i) errors.push(field(`stages.${i}.`, "label", `stages.${i}.label: ${JSON.stringify(s.label)} is the label of another stage of the pipeline`));
  });
  if (errors.length) throw fail(errors);
  return { metadata };
}

const reread = async (db: Db, portalId: number, type: PipelineType, id: string) => pick(await allPipelines(db, portalId, type), id, { archived: true });

export async function createPipeline(db: Db, portalId: number, type: PipelineType, input: PipelineInput, now: number): Promise<Pipeline> {
  const all = await allPipelines(db, portalId, type);
  const { metadata } = checkStages(type, input.stages);
  if (all.filter((p) => p.archivedAt === null).length >= MAX_PIPELINES) throw badRequest(`An account has at most ${MAX_PIPELINES} ${type} pipelines`);
  uniquePipelineLabel(all, input.label);
  const [made] = await db.batch([
    db
      .insert(pipelines)
      .values({ id: newId("pipelines"), portalId, objectType: type, pipelineId: newTextId("pipelines"), label: input.label, displayOrder: input.displayOrder, createdAt: now, updatedAt: now })
      .returning({ pipelineId: pipelines.pipelineId }),
    db.insert(pipelineStages).values(
      input.stages.map((s, i) => ({
        id: newId("pipeline_stages", i),
        portalId,
        objectType: type,
        pipelineId: lastId("pipelines"),
        stageId: newTextId("pipeline_stages", i),
        label: s.label,
        displayOrder: s.displayOrder,
        metadata: metadata[i]!,
        createdAt: now,
        updatedAt: now,
      })),
    ),
    audit(db, portalId, type, lastId("pipelines"), null, "CREATE", { ...input, stages: input.stages.map((s, i) => ({ ...s, metadata: metadata[i] })) }, now, lastId("pipelines")),
  ]);
  return reread(db, portalId, type, made[0]!.pipelineId);
}

/**
 * PUT: the pipeline becomes the body. The body's stages carry no ids (the client's PipelineStageInput has
 * none), so a stage whose label matches a live stage of the pipeline keeps that stage's id (and its
 * records); the other live stages are archived, which records in them refuse; the other inputs are new
 * stages.
 */
export async function replacePipeline(db: Db, portalId: number, type: PipelineType, pipelineId: string, input: PipelineInput, now: number): Promise<Pipeline> {
  const all = await allPipelines(db, portalId, type);
  const p = pick(all, pipelineId);
  writable(p);
  const { metadata } = checkStages(type, input.stages);
  uniquePipelineLabel(all, input.label, p.id);
  const live = liveStages(p);
  const matched = input.stages.map((s) => live.find((x) => sameLabel(x.label, s.label)));
  const dropped = live.filter((x) => !matched.includes(x));
  if (dropped.length) await refuseIfUsed(db, portalId, type, `Stage ${dropped.map((s) => s.id).join(", ")} of pipeline ${p.id}`, dropped.map((s) => s.id));
  const fresh = input.stages.map((s, i) => ({ s, i })).filter(({ i }) => !matched[i]);
  const statements: Statement[] = [
    ...materialize(db, portalId, type, p),
    db.update(pipelines).set({ label: input.label, displayOrder: input.displayOrder, updatedAt: now }).where(pipelineRow(portalId, type, p.id)),
    ...input.stages.flatMap((s, i) => {
      const m = matched[i];
      return m ? [db.update(pipelineStages).set({ label: s.label, displayOrder: s.displayOrder, metadata: metadata[i]!, updatedAt: now }).where(stageRow(portalId, type, m.id))] : [];
    }),
    ...dropped.map((s) => db.update(pipelineStages).set({ archivedAt: now, updatedAt: now }).where(stageRow(portalId, type, s.id))),
    ...(fresh.length
      ? [
          db.insert(pipelineStages).values(
            fresh.map(({ s, i }, n) => ({
              id: newId("pipeline_stages", n),
              portalId,
              objectType: type,
              pipelineId: p.id,
              stageId: newTextId("pipeline_stages", n),
              label: s.label,
              displayOrder: s.displayOrder,
              metadata: metadata[i]!,
              createdAt: now,
              updatedAt: now,
            })),
          ),
        ]
      : []),
    audit(db, portalId, type, p.id, null, "UPDATE", { id: p.id, ...input, stages: input.stages.map((s, i) => ({ ...s, metadata: metadata[i] })) }, now),
  ];
  await run(db, statements);
  return reread(db, portalId, type, p.id);
}

/** PATCH: label and displayOrder; `archived: false` restores an archived pipeline (and is refused on a live one). */
export async function updatePipeline(db: Db, portalId: number, type: PipelineType, pipelineId: string, patch: PipelinePatch, now: number): Promise<Pipeline> {
  const all = await allPipelines(db, portalId, type);
  const p = pick(all, pipelineId, { archived: patch.archived === false });
  writable(p);
  const restoring = p.archivedAt !== null;
  if (patch.archived !== undefined && !restoring) throw fail([field("", "archived", "archived is only sent to restore an archived pipeline (archived: false); DELETE archives one")]);
  if (restoring && all.filter((x) => x.archivedAt === null).length >= MAX_PIPELINES) throw badRequest(`An account has at most ${MAX_PIPELINES} ${type} pipelines`);
  const label = patch.label ?? p.label;
  if (patch.label !== undefined || restoring) uniquePipelineLabel(all, label, p.id);
  await run(db, [
    ...materialize(db, portalId, type, p),
    db
      .update(pipelines)
      .set({ label, displayOrder: patch.displayOrder ?? p.displayOrder, updatedAt: now, ...(restoring ? { archivedAt: null } : {}) })
      .where(pipelineRow(portalId, type, p.id)),
    audit(db, portalId, type, p.id, null, restoring ? "RESTORE" : "UPDATE", { id: p.id, ...patch }, now),
  ] satisfies Statement[]);
  return reread(db, portalId, type, p.id);
}

export async function archivePipeline(db: Db, portalId: number, type: PipelineType, pipelineId: string, now: number): Promise<void> {
  const all = await allPipelines(db, portalId, type);
  const p = pick(all, pipelineId);
  writable(p);
  if (p.id === BUILT_IN[type].id) throw badRequest(`Pipeline ${p.id} is the account's default ${type} pipeline: records written without a pipeline are in it, so it is never archived`);
  await refuseIfUsed(db, portalId, type, `Pipeline ${p.id}`, liveStages(p).map((s) => s.id), p.id);
  await db.batch([
    db.update(pipelines).set({ archivedAt: now, updatedAt: now }).where(pipelineRow(portalId, type, p.id)),
    audit(db, portalId, type, p.id, null, "DELETE", { id: p.id, archived: true }, now),
  ]);
}

const touchPipeline = (db: Db, portalId: number, type: PipelineType, p: Pipeline, now: number) => db.update(pipelines).set({ updatedAt: now }).where(pipelineRow(portalId, type, p.id));

export async function createStage(db: Db, portalId: number, type: PipelineType, pipelineId: string, input: StageInput, now: number): Promise<Stage> {
  const p = pick(await allPipelines(db, portalId, type), pipelineId);
  writable(p);
  const { metadata, errors } = stageMetadata(type, input.metadata, "");
  if (errors.length) throw fail(errors);
  if (liveStages(p).length >= MAX_STAGES) throw badRequest(`A pipeline has at most ${MAX_STAGES} stages`);
  uniqueStageLabel(p, input.label);
  const pre = materialize(db, portalId, type, p);
  const results = await run(db, [
    ...pre,
    db
      .insert(pipelineStages)
      .values({ id: newId("pipeline_stages"), portalId, objectType: type, pipelineId: p.id, stageId: newTextId("pipeline_stages"), label: input.label, displayOrder: input.displayOrder, metadata, createdAt: now, updatedAt: now })
      .returning({ stageId: pipelineStages.stageId }),
    touchPipeline(db, portalId, type, p, now),
    audit(db, portalId, type, p.id, lastId("pipeline_stages"), "CREATE", { ...input, metadata }, now, lastId("pipeline_stages")),
  ] satisfies Statement[]);
  const made = results[pre.length] as { stageId: string }[];
  return pickStage(await reread(db, portalId, type, p.id), made[0]!.stageId);
}

/**
 * PUT and PATCH of a stage. PUT sets label, displayOrder and metadata (a deal stage's probability must be
 * sent again); PATCH changes what it sends, its metadata keys over the stored ones, and `archived: false`
 * restores an archived stage.
 */
export async function changeStage(
  db: Db,
  portalId: number,
  type: PipelineType,
  pipelineId: string,
  stageId: string,
  change: { replace: StageInput } | { patch: StagePatch },
  now: number,
): Promise<Stage> {
  const p = pick(await allPipelines(db, portalId, type), pipelineId);
  writable(p);
  const patch = "patch" in change ? change.patch : undefined;
  const s = pickStage(p, stageId, { archived: patch?.archived === false });
  const restoring = s.archivedAt !== null;
  if (patch?.archived !== undefined && !restoring) throw fail([field("", "archived", "archived is only sent to restore an archived stage (archived: false); DELETE archives one")]);
  const next = "replace" in change ? change.replace : { label: patch!.label ?? s.label, displayOrder: patch!.displayOrder ?? s.displayOrder, metadata: patch!.metadata };
  const { metadata, errors } = stageMetadata(type, next.metadata, "", "replace" in change ? {} : s.metadata);
  if (errors.length) throw fail(errors);
  if (restoring && liveStages(p).length >= MAX_STAGES) throw badRequest(`A pipeline has at most ${MAX_STAGES} stages`);
  if (next.label !== s.label || restoring) uniqueStageLabel(p, next.label, s.id);
  await run(db, [
    ...materialize(db, portalId, type, p),
    db
      .update(pipelineStages)
      .set({ label: next.label, displayOrder: next.displayOrder, metadata, updatedAt: now, ...(restoring ? { archivedAt: null } : {}) })
      .where(stageRow(portalId, type, s.id)),
    touchPipeline(db, portalId, type, p, now),
    audit(db, portalId, type, p.id, s.id, restoring ? "RESTORE" : "UPDATE", { id: s.id, ...next, metadata }, now),
  ] satisfies Statement[]);
  return pickStage(await reread(db, portalId, type, p.id), s.id);
}

export async function archiveStage(db: Db, portalId: number, type: PipelineType, pipelineId: string, stageId: string, now: number): Promise<void> {
  const p = pick(await allPipelines(db, portalId, type), pipelineId);
  writable(p);
  const s = pickStage(p, stageId);
  if (liveStages(p).length <= 1) throw badRequest(`Stage ${s.id} is the last stage of pipeline ${p.id}: a pipeline has at least one stage`);
  await refuseIfUsed(db, portalId, type, `Stage ${s.id}`, [s.id]);
  await run(db, [
    ...materialize(db, portalId, type, p),
    db.update(pipelineStages).set({ archivedAt: now, updatedAt: now }).where(stageRow(portalId, type, s.id)),
    touchPipeline(db, portalId, type, p, now),
    audit(db, portalId, type, p.id, s.id, "DELETE", { id: s.id, archived: true }, now),
  ] satisfies Statement[]);
}

/** What a stage audit reads: the pipeline's audit rows of the stage, newest first (at most 500). */
export async function auditOf(db: Db, portalId: number, type: PipelineType, pipelineId: string, stageId: string | null) {
  const rows = await db
    .select()
    .from(pipelineAudits)
    .where(
      and(
        eq(pipelineAudits.portalId, portalId),
        eq(pipelineAudits.objectType, type),
        eq(pipelineAudits.pipelineId, pipelineId),
        stageId === null ? isNull(pipelineAudits.stageId) : eq(pipelineAudits.stageId, stageId),
      ),
    )
    .orderBy(sql`${pipelineAudits.id} desc`)
    .limit(500);
  return rows.map((r) => ({ identifier: stageId ?? pipelineId, portalId, action: r.action as Action, timestamp: new Date(r.at).toISOString(), rawObject: r.raw }));
}

