/**
 * @module How a fixture's problems are reported (docs/reference/testkit.md, "Fixtures"): each by its JSON
 * path (`records.contacts[3].properties.email`), all of them in one 400; and how rows travel to D1 in
 * chunks of one JSON parameter each (D1 binds at most 100 parameters a statement).
 */
import { ApiError, badRequest, type ErrorDetail } from "../../lib/errors";

/** Rows per insert statement: one JSON parameter each, well under D1's statement and value size limits. */
const CHUNK_ROWS = 500;
const CHUNK_BYTES = 512 * 1024;
/** Problems listed in a 400 (the message says how many there were in all). */
const MAX_LISTED = 500;

/** A JSON path as the docs write it: `records.contacts[3].properties.email`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, k) => (typeof k === "number" ? `${out}[${k}]` : out ? `${out}.${String(k)}` : String(k)), "");
}

export const problem = (path: string, message: string, code = "INVALID_VALUE"): ErrorDetail => ({ message: `${path}: ${message}`, code, in: "body", context: { propertyName: [path] } });

/** The 400 naming every problem (the first MAX_LISTED of them). */
export function problems(list: ErrorDetail[]): ApiError {
  const shown = list.slice(0, MAX_LISTED);
  const head = shown.slice(0, 3).map((e) => e.message).join("; ");
  const more = list.length > 3 ? ` (${list.length} problems in all${list.length > MAX_LISTED ? `, the first ${MAX_LISTED} listed` : ""})` : "";
  return badRequest(`The fixture was not loaded: ${head}${more}`, { errors: shown });
}

/**
 * The errors a check threw as its 400, each field renamed to its path in the document (`prefix` before a
 * field the check names by itself, such as the blog's `slug`).
 */
export function caught(err: unknown, prefix = ""): ErrorDetail[] {
  if (!(err instanceof ApiError) || err.status !== 400) throw err;
  const details = err.init.errors?.length ? err.init.errors : [{ message: err.message, in: "body", context: err.init.context }];
  return details.map((d) => {
    const field = (d.context?.propertyName as string[] | undefined)?.[0];
    const path = field === undefined ? prefix.replace(/\.$/, "") : field.startsWith(prefix) ? field : `${prefix}${field}`;
    if (!path) return d;
    return { ...d, message: d.message.startsWith(path) ? d.message : `${path}: ${d.message}`, context: { ...d.context, propertyName: [path] } };
  });
}

/** Splits rows into chunks of at most CHUNK_ROWS rows and about CHUNK_BYTES of JSON. */
export function chunks<T>(rows: T[], maxRows = CHUNK_ROWS, maxBytes = CHUNK_BYTES): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = JSON.stringify(row).length;
    if (current.length && (current.length >= maxRows || bytes + size > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}
