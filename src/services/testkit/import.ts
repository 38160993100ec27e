/**
 * @module Import of an account export into an empty account (docs/reference/testkit.md, "Import"): the
 * operator's restore. Takes the NDJSON that `GET /admin/v1/accounts/{portalId}/export` gives
 * (src/services/accounts/export.ts) and puts the account's data back, every row with its id and values,
 * into the account the path names; any accountType, as it is a restore and not a test control.
 *
 * What is imported is every table of the export: the account's data as a snapshot holds it
 * (src/services/testkit/snapshots.ts), every exported table of the account's database, and its people, apps
 * and credentials, the control-plane rows, with new ids (src/services/testkit/import-people.ts says how).
 * The rows' account becomes the target account. Lines of two exported tables are read, checked and counted
 * as `skipped`:
 * - the webhook outbox holds events of the exported account for apps installed there; they are not sent
 *   again as the target's;
 * - the account's move record says where the exported account's data went between databases, not the
 *   target's (and one of a move under way would stop the target's own moves).
 *
 * The body is read as a stream, line by line, and checked whole before anything is written: a malformed
 * line is a 400 naming its number. Then the rows go in ONE db.batch (all or none), each statement a chunk of
 * rows given as one JSON parameter, as D1 binds at most 100 parameters a statement. The batch runs under the
 * account's unlocked fence, as a move's copy does, so rows whose ids come from another database's range
 * (an account exported there) are let in; the id counters only move for ids of the database's own range.
 *
 * The data's ids are kept: an export whose ids a database already holds (the exported account still lives in the same
 * database) is a 409, nothing written. An export of an account that still lives in another database makes
 * two accounts with the same ids in two databases; moving one onto the other's database then fails (and
 * leaves it where it was). The restore this is for is of an account that is gone.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ACCOUNT_CONTROL_TABLES, ACCOUNT_TABLES, type AccountTable } from "../../db/account-tables";
import { shardBinding } from "../../db/shards";
import { accounts } from "../../db/tables/tenancy";
import { columnsOf } from "../../durable-objects/account-mover/copy";
import { ApiError, badRequest, conflict, notFound, type ErrorDetail } from "../../lib/errors";
import { EXPORT_FORMAT } from "../accounts/export";
import { readMove } from "../shards/move-state";
import { faultPoint } from "../../lib/fault-seam";
import { planPeople, PEOPLE_TABLES, type IdMaps, type Line } from "./import-people";
import { companionRefused } from "./account";
import { chunks } from "./problems";

/** The import's body cap: the most a Worker may receive in a request (platform limits). */
export const IMPORT_MAX_BODY = 100 * 1024 * 1024;
/** Statements of the import's batch, of the invocation's 1,000 queries (the rest: checks, counting, margin). */
const MAX_STATEMENTS = 900;
/** Malformed lines listed in a 400. */
const MAX_LISTED = 100;

/** The tables an import writes: the account's data, as a snapshot holds it. */
const DATA: AccountTable[] = ACCOUNT_TABLES.filter((t) => !t.notExported && t.name !== "webhook_outbox");
/** The control-plane tables an import writes: the account's people, apps and credentials. */
const PEOPLE: AccountTable[] = ACCOUNT_CONTROL_TABLES.filter((t) => (PEOPLE_TABLES as readonly string[]).includes(t.name));
/** Tables whose lines an export holds and an import reads but leaves alone. */
const SKIPPED = new Set([...ACCOUNT_TABLES, ...ACCOUNT_CONTROL_TABLES].filter((t) => !t.notExported && !DATA.includes(t) && !PEOPLE.includes(t)).map((t) => t.name));

/** The column holding a table's account (`portal_id = ?`, or the ecommerce settings' `owner_id = ?`). */
const accountColumn = (t: AccountTable) => /(\w+) = \?$/.exec(t.where)![1]!;

const accountColumnOf = new Map(DATA.map((t) => [t.name, accountColumn(t)]));

const lineError = (line: number, message: string): ErrorDetail => ({ message: `line ${line}: ${message}`, code: "INVALID_LINE", in: "body", context: { line } });

/** Yields the body's lines with their numbers (from 1), refusing a body past `max` bytes. */
async function* lines(body: ReadableStream<Uint8Array>, max: number): AsyncGenerator<[number, string]> {
  const decoder = new TextDecoder();
  let rest = "";
  let read = 0;
  let n = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    read += chunk.byteLength;
    if (read > max) throw new ApiError("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${max} bytes`);
    rest += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = rest.indexOf("\n")) >= 0) {
      yield [++n, rest.slice(0, at)];
      rest = rest.slice(at + 1);
    }
  }
  rest += decoder.decode();
  if (rest !== "") yield [++n, rest];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

interface Parsed {
  header: { portalId: number; exportedAt: string };
  /** Per imported table, each row as its values in the table's column order. */
  rows: Map<string, unknown[][]>;
  /** Per control-plane table, each row with its line. */
  people: Map<(typeof PEOPLE_TABLES)[number], Line[]>;
  skipped: Record<string, number>;
}

/** Reads and checks every line; a 400 listing the malformed ones (by number) when there is any. */
async function parse(body: ReadableStream<Uint8Array>, columns: Map<string, string[]>, portalId: number): Promise<Parsed> {
  const errors: ErrorDetail[] = [];
  let header: Parsed["header"] | null = null;
  const rows = new Map<string, unknown[][]>(DATA.map((t) => [t.name, []]));
  const skipped: Record<string, number> = {};
  const people: Parsed["people"] = new Map();
  let count = 0;
  for await (const [n, text] of lines(body, IMPORT_MAX_BODY)) {
    count = n;
    if (errors.length >= MAX_LISTED) continue; // read on only to hold the body to its cap
    if (text.trim() === "") {
      errors.push(lineError(n, "an empty line; every line of an export is one JSON object"));
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      errors.push(lineError(n, "not JSON"));
      continue;
    }
    if (n === 1) {
      if (!isObject(value) || value.format !== EXPORT_FORMAT || !Number.isSafeInteger(value.portalId) || typeof value.exportedAt !== "string") {
        errors.push(lineError(n, `the first line is the export's header {"portalId", "exportedAt", "format": "${EXPORT_FORMAT}"}`));
      } else header = { portalId: value.portalId as number, exportedAt: value.exportedAt };
      continue;
    }
    if (!isObject(value) || Object.keys(value).length !== 2 || typeof value.table !== "string" || !isObject(value.row)) {
      errors.push(lineError(n, 'a line of an export is {"table": "<name>", "row": {<column>: <value>}}'));
      continue;
    }
    const { table, row } = value as { table: string; row: Record<string, unknown> };
    if (SKIPPED.has(table)) {
      skipped[table] = (skipped[table] ?? 0) + 1;
      continue;
    }
    const cols = columns.get(table);
    if (!cols) {
      errors.push(lineError(n, `${JSON.stringify(table)} is not a table of an account export`));
      continue;
    }
    const unknown = Object.keys(row).filter((c) => !cols.includes(c));
    const bad = Object.entries(row).filter(([, v]) => !isScalar(v)).map(([c]) => c);
    if (unknown.length) errors.push(lineError(n, `${table} has no column ${unknown.map((c) => JSON.stringify(c)).join(", ")}`));
    else if (bad.length) errors.push(lineError(n, `the value of ${bad.join(", ")} is not a string, number, boolean or null`));
    else if (rows.has(table)) rows.get(table)!.push(cols.map((c) => (c === accountColumnOf.get(table) ? portalId : (row[c] ?? null))));
    else {
      const name = table as (typeof PEOPLE_TABLES)[number];
      people.set(name, [...(people.get(name) ?? []), { line: n, row }]);
    }
  }
  if (count === 0) errors.push(lineError(1, "the body is empty: an import takes the NDJSON an export gives"));
  refuse(errors);
  return { header: header!, rows, people, skipped };
}

/** Throws the 400 of the malformed lines, when there is any. */
function refuse(errors: ErrorDetail[]) {
  if (!errors.length) return;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more${errors.length >= MAX_LISTED ? "; the first " + MAX_LISTED + " listed" : ""})` : "";
  throw badRequest(`The export was not imported: ${errors[0]!.message}${more}`, { errors: errors.slice(0, MAX_LISTED) });
}

/**
 * The data's references to people follow their new ids: a record's `hubspot_owner_id` (an owner id), a
 * blog post's `author_user_id` (a user id). Owner ids elsewhere (a list's filters) are left as exported.
 */
function remap(rows: Map<string, unknown[][]>, columns: Map<string, string[]>, maps: IdMaps) {
  const properties = columns.get("crm_objects")!.indexOf("properties");
  for (const r of rows.get("crm_objects") ?? []) {
    const text = r[properties];
    if (typeof text !== "string" || !text.includes("hubspot_owner_id")) continue;
    const props = JSON.parse(text) as Record<string, unknown>;
    const owner = maps.owners.get(Number(props.hubspot_owner_id));
    if (owner === undefined) continue;
    props.hubspot_owner_id = String(owner);
    r[properties] = JSON.stringify(props);
  }
  const author = columns.get("blog_posts")!.indexOf("author_user_id");
  for (const r of rows.get("blog_posts") ?? []) {
    const user = maps.users.get(Number(r[author]));
    if (user !== undefined) r[author] = user;
  }
}

/** Imports the export in `body` into the (empty) account; answers the rows imported and skipped by table. */
export async function importAccount(env: Env, control: Db, portalId: number, body: ReadableStream<Uint8Array> | null, now: number) {
  const row = await control.select().from(accounts).where(eq(accounts.portalId, portalId)).get();
  if (!row) throw notFound(`Account ${portalId} not found`);
  if (row.status === "deleting") throw conflict(`Account ${portalId} is being deleted`);
  const move = await readMove(control, portalId);
  if (move && move.state !== "failed") throw conflict(`Account ${portalId} is moving between databases; import once the move is over`);
  if (row.companion) throw companionRefused(portalId);
  const d1 = shardBinding(env, row.shard);
  const cols = [...(await columnsOf(d1, DATA)), ...(await columnsOf(env.DB, PEOPLE))].map((c) => c.map((q) => q.slice(1, -1)));
  const columns = new Map([...DATA, ...PEOPLE].map((t, i) => [t.name, cols[i]!]));

  // Empty first: a body is not worth reading into an account that cannot take it.
  const held = await d1
    .prepare(`select ${DATA.map((t) => `(select count(*) from ${t.name} where ${t.where.replaceAll("?", "?1")})`).join(" + ")} as n`)
    .bind(portalId)
    .first<number>("n");
  if (held) throw conflict(`Account ${portalId} holds data (${held} rows): an import goes into an empty account (a new one, or a test account after POST /admin/v1/accounts/${portalId}/reset)`);
  if (!body) throw badRequest("A request body is required: the NDJSON of GET /admin/v1/accounts/{portalId}/export");

  const { header, rows, people: lines, skipped } = await parse(body, columns, portalId);
  const errors: ErrorDetail[] = [];
  const people = await planPeople(env.DB, portalId, lines, errors);
  refuse(errors);
  remap(rows, columns, people.maps);
  const statements: D1PreparedStatement[] = [];
  const counts: Record<string, number> = {};
  for (const t of DATA) {
    const list = rows.get(t.name)!;
    if (!list.length) continue;
    counts[t.name] = list.length;
    const names = columns.get(t.name)!;
    for (const chunk of chunks(list)) {
      statements.push(
        d1
          .prepare(`insert into ${t.name} (${names.map((c) => `"${c}"`).join(", ")}) select ${names.map((_, k) => `j.value ->> ${k}`).join(", ")} from json_each(?1) j order by j.key`)
          .bind(JSON.stringify(chunk)),
      );
    }
  }
  if (statements.length > MAX_STATEMENTS) {
    throw new ApiError("PAYLOAD_TOO_LARGE", `The export is too large to import in one request (${statements.length} statements of at most ${MAX_STATEMENTS})`);
  }
  const data = [
    d1.prepare("insert into account_fences (portal_id, state, created_at, unlocked) values (?, 'incoming', ?, 1)").bind(portalId, now),
    ...statements,
    d1.prepare("delete from account_fences where portal_id = ?").bind(portalId),
  ];
  try {
    // The people are the control plane's: in the data's batch when the account's data is there too; else
    // written first and taken back if the data's batch fails.
    if (d1 === env.DB) await d1.batch([...people.write, ...data]);
    else {
      if (people.write.length) await env.DB.batch(people.write);
      try {
        faultPoint("import:write", [String(portalId)]);
        await d1.batch(data);
      } catch (err) {
        if (people.undo.length) await env.DB.batch(people.undo);
        throw err;
      }
    }
  } catch (err) {
    const text = String(err) + String((err as { cause?: unknown }).cause ?? "");
    if (text.includes("account_fences.portal_id") || text.includes("ACCOUNT_FENCED")) throw conflict(`Account ${portalId} is moving or being deleted; import once it is over`);
    if (text.includes("UNIQUE")) {
      throw conflict(`This database already holds rows with the export's ids (is account ${header.portalId} still here?); nothing was imported`);
    }
    if (text.includes("constraint")) throw badRequest("The export's rows do not fit this deployment's tables (a required column without a value); nothing was imported");
    throw err;
  }
  return { portalId, importedAt: new Date(now).toISOString(), from: header, counts: { ...counts, ...people.counts }, ids: people.ids, skipped: { ...skipped, ...people.skipped } };
}
