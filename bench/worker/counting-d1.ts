/**
 * @module A D1 client that counts (bench only, never in the production bundle).
 *
 * Why not wrap the `DB` binding: its `raw()` and `first()` return rows without `meta`, and drizzle reads
 * every typed select through `raw()`, so a wrapper would miss most `meta.rows_read` figures. This client
 * speaks the D1 binding's own wire protocol (POST /query or /execute with `{sql, params}`, answers with
 * `{results, meta}` per statement) to the same local database service the `DB` binding uses, through a
 * session of that binding (bench/worker/index.ts, `d1Wire`). Every statement therefore runs in the real D1
 * simulator, and its `meta` (rows_read, rows_written) is exactly what D1 reports, for every method.
 */

export interface D1Counts {
  /** Calls to the database service (a batch is one). */
  roundTrips: number;
  statements: number;
  rowsRead: number;
  rowsWritten: number;
  /** Rows the statements returned to the Worker. */
  rowsReturned: number;
  /** Every statement's SQL (first 160 characters) and its counts, in order. */
  log: { sql: string; rowsRead: number; rowsWritten: number; rowsReturned: number; ms: number }[];
}

export const emptyCounts = (): D1Counts => ({ roundTrips: 0, statements: 0, rowsRead: 0, rowsWritten: 0, rowsReturned: 0, log: [] });

type Value = number | string | null | number[];
interface Wire {
  success: boolean;
  error?: string;
  results?: { columns: string[]; rows: Value[][] } | Record<string, Value>[];
  meta?: { rows_read?: number; rows_written?: number; changes?: number; last_row_id?: number; duration?: number };
}

function toValue(v: unknown): Value {
  if (v === null || typeof v === "number" || typeof v === "string") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof ArrayBuffer) return [...new Uint8Array(v)];
  if (ArrayBuffer.isView(v)) return [...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)];
  throw new Error(`D1_TYPE_ERROR: Type '${typeof v}' not supported`);
}

const columnsAndRows = (r: Wire): { columns: string[]; rows: Value[][] } => {
  if (!r.results) return { columns: [], rows: [] };
  if (Array.isArray(r.results)) {
    const columns = r.results[0] ? Object.keys(r.results[0]) : [];
    return { columns, rows: r.results.map((o) => columns.map((c) => o[c] ?? null)) };
  }
  return r.results;
};
const toObjects = ({ columns, rows }: { columns: string[]; rows: Value[][] }) =>
  rows.map((row) => Object.fromEntries(row.map((cell, i) => [columns[i], cell])));

export class CountingD1 {
  constructor(
    private readonly service: Fetcher,
    readonly counts: D1Counts = emptyCounts(),
  ) {}

  prepare(sql: string): CountingStatement {
    return new CountingStatement(this, sql, []);
  }

  async batch(statements: CountingStatement[]) {
    const answers = await this.send("/query", statements.map((s) => ({ sql: s.sql, params: s.params })));
    return answers.map((a) => ({ success: true, meta: a.meta ?? {}, results: toObjects(columnsAndRows(a)) }));
  }

  async exec(sql: string) {
    const answers = await this.send("/execute", sql.split("\n").filter((l) => l.trim()).map((l) => ({ sql: l, params: [] })), "NONE");
    return { count: answers.length, duration: answers.reduce((s, a) => s + (a.meta?.duration ?? 0), 0) };
  }

  /**
   * A session of the one local database: the local D1 has no replicas, so a session runs its statements
   * here, counted like any other, whatever its constraint; its bookmark is a constant.
   */
  withSession(): { prepare: (sql: string) => CountingStatement; batch: (statements: CountingStatement[]) => ReturnType<CountingD1["batch"]>; getBookmark: () => string } {
    return { prepare: (sql) => this.prepare(sql), batch: (statements) => this.batch(statements), getBookmark: () => "counting-d1" };
  }

  dump(): never {
    throw new Error("CountingD1 cannot dump");
  }

  /** One round trip; throws like the binding on the first failed statement; records every statement's meta. */
  async send(endpoint: string, queries: { sql: string; params: Value[] }[], format = "ROWS_AND_COLUMNS"): Promise<Wire[]> {
    const res = await this.service.fetch(`http://d1${endpoint}?resultsFormat=${format}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(queries),
    });
    const body = (await res.json()) as Wire | Wire[];
    const answers = Array.isArray(body) ? body : [body];
    const failed = answers.find((a) => !a.success);
    if (failed) throw new Error(`D1_ERROR: ${failed.error ?? "unknown error"}`);
    this.counts.roundTrips++;
    answers.forEach((a, i) => {
      const returned = columnsAndRows(a).rows.length;
      const entry = { sql: (queries[i]?.sql ?? "").replace(/\s+/g, " ").slice(0, 160), rowsRead: a.meta?.rows_read ?? 0, rowsWritten: a.meta?.rows_written ?? 0, rowsReturned: returned, ms: a.meta?.duration ?? 0 };
      this.counts.statements++;
      this.counts.rowsRead += entry.rowsRead;
      this.counts.rowsWritten += entry.rowsWritten;
      this.counts.rowsReturned += returned;
      this.counts.log.push(entry);
    });
    return answers;
  }
}

export class CountingStatement {
  constructor(
    private readonly db: CountingD1,
    readonly sql: string,
    readonly params: Value[],
  ) {}

  bind(...values: unknown[]): CountingStatement {
    return new CountingStatement(this.db, this.sql, values.map(toValue));
  }

  private async one(endpoint = "/query", format = "ROWS_AND_COLUMNS"): Promise<Wire> {
    const [answer] = await this.db.send(endpoint, [{ sql: this.sql, params: this.params }], format);
    return answer!;
  }

  async all() {
    const a = await this.one();
    return { success: true, meta: a.meta ?? {}, results: toObjects(columnsAndRows(a)) };
  }

  async run() {
    const a = await this.one();
    return { success: true, meta: a.meta ?? {}, results: toObjects(columnsAndRows(a)) };
  }

  async first(column?: string) {
    const [row] = toObjects(columnsAndRows(await this.one()));
    if (!row) return null;
    return column === undefined ? row : row[column];
  }

  async raw(options?: { columnNames?: boolean }) {
    const { columns, rows } = columnsAndRows(await this.one());
    return options?.columnNames ? [columns, ...rows] : rows;
  }
}
