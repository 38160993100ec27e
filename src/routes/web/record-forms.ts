/**
 * @module What every form of the record page does first (docs/reference/web.md, "Working on a record"): the
 * signed-in session (else to /login), its CSRF token (the form's `csrf` field, or `X-CSRF-Token`), then the
 * record, which must be a live contact, company, deal or ticket of the session's account: anything else is
 * the record page's own 404 page, and nothing is written. Also the answers: 303 back to the record page
 * (post/redirect/get), and the API's 400 read as errors by form field.
 */
import { CSRF_HEADER, pageSession } from "../../http/app-session";
import { checkCsrf, type Session } from "../../http/session";
import type { Ctx } from "../../http/route";
import { ApiError } from "../../lib/errors";
import { getObject, type CrmRow } from "../../services/crm/records";
import { isPageType, typeLabel, type PageType } from "../../services/web/records";
import { appPage, notFoundPage } from "../../views/layout";

export interface WorkingRecord {
  user: Session;
  type: PageType;
  record: CrmRow;
  path: string;
}

type FormCtx = Pick<Ctx, "db" | "control" | "request" | "url" | "now">;

/** The 403 page of a form without the session's token (another site's form, or a page from before sign-in). */
export function csrfRefused(user: Session): Response {
  return appPage({
    title: "Form refused",
    section: "home",
    user,
    status: 403,
    body: `<h1>This form was refused</h1><p>Its security token is missing or out of date: it was sent from another site, or from a page opened before you signed in again.</p><p>Go back, reload the page and try again.</p>`,
  });
}

/**
 * The session and the record a form works on, or the response that ends the request: the sign-in redirect,
 * the 403 page (CSRF, checked before anything is read), the 404 page.
 */
export async function workingRecord(c: FormCtx, params: { objectType: string; objectId: string }, csrf: string | undefined | false): Promise<WorkingRecord | Response> {
  const user = await pageSession(c.control, c.request, c.url, c.now);
  if (user instanceof Response) return user;
  if (csrf !== false) {
    try {
      checkCsrf(user, csrf || (c.request.headers.get(CSRF_HEADER) ?? undefined));
    } catch (err) {
      if (err instanceof ApiError && err.category === "FORBIDDEN") return csrfRefused(user);
      throw err;
    }
  }
  const type = params.objectType;
  if (!isPageType(type) || !/^\d{1,15}$/.test(params.objectId)) return notFoundPage(user, "home", "There is no such record.");
  const id = Number(params.objectId);
  // Another account's id is the same 404 as a missing one (as the record page answers it).
  const record = await getObject(c.db, user.portalId, type, id).catch((err: unknown) => {
    if (err instanceof ApiError && err.category === "OBJECT_NOT_FOUND") return null;
    throw err;
  });
  if (!record) return notFoundPage(user, type, `${typeLabel(type).one} ${id} was not found.`);
  return { user, type, record, path: `/app/${type}/${id}` };
}

/** Post/redirect/get: back to the record page, at the section the form belongs to. */
export const seeOther = (location: string) => new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });

/**
 * The API's 400 as errors by form field: each detail's `context.propertyName` (`properties.hs_timestamp`,
 * `associations.0.to.id`) names the field by its last part, moved by `fieldOf` where the form names it
 * otherwise; a detail naming nothing, or a field the form does not have, is shown above the form.
 */
export function fieldErrors(err: ApiError, fieldOf: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of err.init.errors ?? []) {
    const named = (d.context?.propertyName as string[] | undefined)?.[0];
    const last = named?.split(".").at(-1);
    const field = last ? (fieldOf[last] ?? last) : "";
    if (!out[field]) out[field] = d.message;
  }
  if (Object.keys(out).length === 0) out[""] = err.message;
  return out;
}

/** A form's own fields that are not the CSRF token, as posted (shown again when it is refused). */
export function postedValues(body: Record<string, string>): Record<string, string> {
  const { csrf: _csrf, ...rest } = body;
  return rest;
}
