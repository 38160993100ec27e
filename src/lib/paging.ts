/**
 * @module The v3 page shape (`paging.next` with the cursor and a link to the next page, absent on the last
 * page) and the query parameters the v3 reads share.
 */
import { z } from "zod";

export const pagingSchema = z.object({ next: z.object({ after: z.string(), link: z.string() }) }).optional();

/** `{results, paging?}`: `paging.next.after` is the cursor, `link` the same URL with it set. */
export function pageBody<T>(results: T[], next: string | null, url: URL, extra: Record<string, unknown> = {}) {
  const body: Record<string, unknown> = { ...extra, results };
  if (next !== null) {
    const link = new URL(url);
    link.searchParams.set("after", next);
    body.paging = { next: { after: next, link: link.toString() } };
  }
  return body;
}

/** The `after` query parameter of the v3 faces: an opaque cursor that is a numeric string. */
export const afterCursor = z.string().regex(/^\d{1,15}$/, "after must be a cursor from paging.next.after").transform(Number).optional();

/**
 * A true/false query parameter (`archived` of the v3 reads), in any case: clients that write booleans as
 * Python does send `True`. Anything else is a 400 naming it.
 */
export const booleanQuery = (name: string) =>
  z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(["true", "false"], { error: `${name} must be true or false` }))
    .transform((v) => v === "true");
