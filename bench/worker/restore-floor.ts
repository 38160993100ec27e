/**
 * Figure 14's floor: what a restore of a snapshot must do at the least, as one raw `db.batch` and nothing
 * else (no credential, no account or move check, no snapshot lookup, no fence, outbox or store generation).
 * For each table named in `tables` (the tables the snapshot holds rows of), the account's rows are deleted,
 * then the snapshot's rows of that table are inserted back from their stored form (`snapshot_rows.row`, a JSON
 * array of the columns) with one `insert … select` each: the same rows of the same tables as the restore
 * copies, read from the same stored form, through the same triggers (fences, id ranges, the contact search
 * index). The column lists are read once per isolate, as the restore's are. Answers 204; the suite counts the
 * account's rows afterwards.
 *
 *   POST /__bench/floor/restore?portal=<portalId>&snapshot=<name>&tables=<t1,t2,…>
 */
import { ACCOUNT_TABLES } from "../../src/db/account-tables";
import { columnsOf } from "../../src/durable-objects/account-mover/copy";

export async function restoreFloor(env: Env, url: URL): Promise<Response> {
  const portal = Number(url.searchParams.get("portal"));
  const snapshot = url.searchParams.get("snapshot") ?? "";
  const names = (url.searchParams.get("tables") ?? "").split(",").filter(Boolean);
  const tables = names.map((n) => ACCOUNT_TABLES.find((t) => t.name === n));
  if (tables.some((t) => !t)) return new Response("unknown table", { status: 400 });
  const known = tables as NonNullable<(typeof tables)[number]>[];
  const cols = await columnsOf(env.DB, known);
  const db = env.DB;
  await db.batch([
    ...[...known].reverse().map((t) => db.prepare(`delete from ${t.name} where ${t.where.replaceAll("?", "?1")}`).bind(portal)),
    ...known.map((t, i) =>
      db
        .prepare(
          `insert into ${t.name} (${cols[i]!.join(", ")}) select ${cols[i]!.map((_, k) => `r.row ->> ${k}`).join(", ")}
           from snapshot_rows r where r.portal_id = ?1 and r.snapshot = ?2 and r.table_name = '${t.name}' order by r.rowid`,
        )
        .bind(portal, snapshot),
    ),
  ]);
  return new Response(null, { status: 204 });
}
