/**
 * @module An account's data as NDJSON (docs/how-to/account-lifecycle.md "Export"): a first line
 * `{portalId, exportedAt, format}`, then one `{table, row}` line per row of every account table (the
 * move's list, src/db/account-tables.ts) and of the account's control-plane rows. Values are as
 * stored (JSON columns as JSON text), so the rows can be inserted back as they are. Secret columns
 * (password and token hashes) and short-lived sign-in state are left out; client secrets belong to apps,
 * which are not the account's.
 *
 * Streamed: each pull reads one page of one table (rowid order), so the export never holds the account in
 * memory; every write acknowledged before the export began is on the primary it reads. A Worker invocation
 * may run 1,000 D1 queries (platform limits): the rows are counted first (one query per database) and the
 * page grows with the account so that the pages fit in QUERY_BUDGET. An account fits in one D1 database
 * (10 GB), so even the largest makes pages of a few MB.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { shardBinding } from "../../db/shards";
import { accounts } from "../../db/tables/tenancy";
import { conflict, notFound } from "../../lib/errors";
import { readMove } from "../shards/move-state";
import { ACCOUNT_CONTROL_TABLES, ACCOUNT_TABLES, COMPANION_TABLE_NAMES, type AccountTable } from "../../db/account-tables";

export const EXPORT_FORMAT = "crm-edge.account-export.v1";
/** Rows per read at least. */
export const EXPORT_PAGE_ROWS = 1_000;
/** D1 queries the export may spend of the invocation's 1,000 (the rest: authentication, checks, margin). */
export const QUERY_BUDGET = 900;

/**
 * Rows per page so that every table's pages fit in the budget: each table costs at least one page (its last,
 * short one), the rest is shared by the rows.
 */
export function pageRows(totalRows: number, tables: number, budget = QUERY_BUDGET): number {
  const pages = Math.max(1, budget - 2 * tables);
  return Math.max(EXPORT_PAGE_ROWS, Math.ceil(totalRows / pages));
}

interface Source {
  d1: D1Database;
  table: AccountTable;
}

/** Checks the account can be exported now, and returns the stream of its lines. */
export async function exportAccount(env: Env, control: Db, portalId: number, now: number): Promise<ReadableStream<Uint8Array>> {
  const account = await control.select().from(accounts).where(eq(accounts.portalId, portalId)).get();
  if (!account) throw notFound(`Account ${portalId} not found`);
  if (account.status === "deleting") throw conflict(`Account ${portalId} is being deleted`);
  const move = await readMove(control, portalId);
  if (move && move.state !== "failed") throw conflict(`Account ${portalId} is moving between databases; export it once the move is over`);
  const shard = shardBinding(env, account.shard);
  // The companion tables are read where they live (docs/explanation/scaling.md "Accounts larger than one database").
  const companion = account.companion ? shardBinding(env, account.companion) : shard;
  const onCompanion = (t: AccountTable) => COMPANION_TABLE_NAMES.includes(t.name);
  const data = ACCOUNT_TABLES.filter((t) => !t.notExported);
  const exported = ACCOUNT_CONTROL_TABLES.filter((t) => !t.notExported);
  const sources: Source[] = [...data.map((table) => ({ d1: onCompanion(table) ? companion : shard, table })), ...exported.map((table) => ({ d1: env.DB, table }))];
  const away = companion === shard ? [] : data.filter(onCompanion);
  const total =
    (await countRows(shard, data.filter((t) => !away.includes(t)), portalId)) +
    (away.length ? await countRows(companion, away, portalId) : 0) +
    (await countRows(env.DB, exported, portalId));
  return ndjsonStream(portalId, sources, pageRows(total, sources.length), now);
}

/** The account's rows in `tables` of one database, in one query. */
async function countRows(d1: D1Database, tables: AccountTable[], portalId: number): Promise<number> {
  const counts = tables.map((t) => `(select count(*) from ${t.name} where ${t.where.replaceAll("?", "?1")})`).join(" + ");
  return (await d1.prepare(`select ${counts} as n`).bind(portalId).first<number>("n")) ?? 0;
}

function ndjsonStream(portalId: number, sources: Source[], rowsPerPage: number, now: number): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let at = -1; // -1: the header line
  let after = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (at === -1) {
          controller.enqueue(enc.encode(JSON.stringify({ portalId, exportedAt: new Date(now).toISOString(), format: EXPORT_FORMAT }) + "\n"));
          at = 0;
          return;
        }
        for (;;) {
          const src = sources[at];
          if (!src) return controller.close();
          const page = await src.d1
            .prepare(`select rowid as __rowid, * from ${src.table.name} where (${src.table.where}) and rowid > ? order by rowid limit ${rowsPerPage}`)
            .bind(portalId, after)
            .all<Record<string, unknown>>();
          const rows = page.results;
          if (rows.length < rowsPerPage) {
            at++;
            after = 0;
          } else after = Number(rows.at(-1)!.__rowid);
          if (!rows.length) continue;
          const lines = rows.map((r) => JSON.stringify({ table: src.table.name, row: exportedRow(r, src.table) })).join("\n");
          controller.enqueue(enc.encode(lines + "\n"));
          return;
        }
      },
    },
    { highWaterMark: 0 },
  );
}

/** The row as it may leave the service: the rowid used for paging and the secret columns left out. */
function exportedRow(r: Record<string, unknown>, table: AccountTable): Record<string, unknown> {
  const { __rowid: _, ...row } = r;
  for (const c of table.secrets ?? []) delete row[c];
  return row;
}
