/**
 * @module An account's data as NDJSON (docs/operator-lifecycle.md "Export"): a first line
 * `{portalId, exportedAt, format}`, then one `{table, row}` line per row of every account table (the
 * move's list, src/services/moves/tables.ts) and of the account's control-plane rows. Values are as
 * stored (JSON columns as JSON text), so the rows can be inserted back as they are. Secret columns
 * (password and token hashes) and short-lived sign-in state are left out; client secrets belong to apps,
 * which are not the account's.
 *
 * Streamed: each pull reads one page of one table (rowid order), so an account of any size is exported
 * within the Worker's memory; every write acknowledged before the export began is on the primary it reads.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { shardBinding } from "../db/shards";
import { accounts } from "../db/tables/tenancy";
import { conflict, notFound } from "../lib/errors";
import { readMove } from "./moves/state";
import { ACCOUNT_CONTROL_TABLES, ACCOUNT_TABLES, type AccountTable } from "./moves/tables";

export const EXPORT_FORMAT = "crm-edge.account-export.v1";
/** Rows per read: one D1 statement per page keeps a large account within the subrequest limits. */
export const EXPORT_PAGE_ROWS = 1_000;

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
  const sources: Source[] = [
    ...ACCOUNT_TABLES.map((table) => ({ d1: shard, table })),
    ...ACCOUNT_CONTROL_TABLES.filter((t) => !t.notExported).map((table) => ({ d1: env.DB, table })),
  ];
  return ndjsonStream(portalId, sources, now);
}

/** The columns of `table` that may leave the service, quoted for a select list. */
async function exportedColumns(src: Source): Promise<string[]> {
  const cols = await src.d1.prepare(`select name from pragma_table_info('${src.table.name}')`).all<{ name: string }>();
  return cols.results.map((c) => c.name).filter((c) => !src.table.secrets?.includes(c));
}

function ndjsonStream(portalId: number, sources: Source[], now: number): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let at = -1; // -1: the header line
  let after = 0;
  let columns: string[] | null = null;
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
          columns ??= await exportedColumns(src);
          const select = ["rowid as __rowid", ...columns.map((c) => `"${c}"`)].join(", ");
          const page = await src.d1
            .prepare(`select ${select} from ${src.table.name} where (${src.table.where}) and rowid > ? order by rowid limit ${EXPORT_PAGE_ROWS}`)
            .bind(portalId, after)
            .all<Record<string, unknown>>();
          const rows = page.results;
          if (rows.length < EXPORT_PAGE_ROWS) {
            at++;
            after = 0;
            columns = null;
          } else after = Number(rows.at(-1)!.__rowid);
          if (!rows.length) continue;
          const lines = rows.map(({ __rowid: _, ...row }) => JSON.stringify({ table: src.table.name, row })).join("\n");
          controller.enqueue(enc.encode(lines + "\n"));
          return;
        }
      },
    },
    { highWaterMark: 0 },
  );
}
