/**
 * @module The deals board (docs/reference/web.md "Deals board"): one pipeline's deals by stage, each
 * column with its count, the sum of its amounts and its first deals. Two statements in one round trip
 * (db.batch): the counts and sums per stage, and the first `perStage` deals of each stage; both visit the
 * account's deals once, in the `crm_objects_list` index.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawStatement, runRawBatch } from "../../db/d1-raw";
import { BUILT_IN } from "../pipelines/built-in";
import { crmColumns, crmRowFromRaw, type CrmRow, type RawCrmRow } from "../crm/records";

export interface StageColumn {
  stageId: string;
  count: number;
  /** The sum of the amounts that are numbers. */
  sum: number;
  /** The one currency of the column's deals that name one; null when none or several. */
  currency: string | null;
  deals: CrmRow[];
}

/**
 * The deals of a pipeline: those whose `pipeline` names it, and, for the built-in pipeline, those without
 * one, since a deal written without a pipeline is in the built-in pipeline (src/services/pipelines/values.ts).
 */
function inPipeline(pipelineId: string): SQL {
  const p = sql`json_extract(c.properties, '$.pipeline')`;
  return pipelineId === BUILT_IN.deals.id ? sql`coalesce(${p}, '') in (${pipelineId}, '')` : sql`${p} = ${pipelineId}`;
}

/** The board's columns for the given stages, in their order; deals in a stage of none of them are not shown. */
export async function boardColumns(db: Db, portalId: number, pipelineId: string, stageIds: string[], perStage: number): Promise<StageColumn[]> {
  const where = sql`c.portal_id = ${portalId} and c.object_type = 'deals' and c.archived = 0 and ${inPipeline(pipelineId)}`;
  const stage = sql`json_extract(c.properties, '$.dealstage')`;
  const amount = sql`json_extract(c.properties, '$.amount')`;
  const currency = sql`nullif(upper(trim(json_extract(c.properties, '$.deal_currency_code'))), '')`;
  const [totalsResult, firstsResult] = await runRawBatch(db, [
    rawStatement(
      db,
      sql`select ${stage} as stage, count(*) as n, total(cast(${amount} as real)) as sum, count(distinct ${currency}) as currencies, max(${currency}) as currency
        from crm_objects c where ${where} group by 1`,
    ),
    // The first deals of each stage, oldest first: a window numbers them per stage in one pass.
    rawStatement(
      db,
      sql`select * from (select ${sql.raw(crmColumns("c"))}, row_number() over (partition by ${stage} order by c.id) as n from crm_objects c where ${where}) where n <= ${perStage} order by id`,
    ),
  ]);
  const totals = (totalsResult?.results ?? []) as { stage: string | null; n: number; sum: number; currencies: number; currency: string | null }[];
  const firsts = (firstsResult?.results ?? []) as RawCrmRow[];
  const byStage = new Map<string, CrmRow[]>();
  for (const r of firsts) {
    const row = crmRowFromRaw(r);
    const s = row.properties.dealstage ?? "";
    byStage.set(s, [...(byStage.get(s) ?? []), row]);
  }
  const totalOf = new Map(totals.map((t) => [t.stage ?? "", t]));
  return stageIds.map((stageId) => {
    const t = totalOf.get(stageId);
    return { stageId, count: t?.n ?? 0, sum: t?.sum ?? 0, currency: t?.currencies === 1 ? t.currency : null, deals: byStage.get(stageId) ?? [] };
  });
}
