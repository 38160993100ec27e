/**
 * @module The web app's record forms (docs/reference/web.md "Forms"): create, edit (the whole record or one
 * property) and delete with a confirmation, for every type with a record page. Writes go through the API's
 * own checks and services (services/web/properties.ts), so the API's 400 is what the form shows, next to the
 * field it names. Every POST carries the session's CSRF token (the `csrf` field, or `X-CSRF-Token` from a
 * script) and answers 303 to the page to show next; another account's record is the same 404 page as a
 * missing one.
 */
import type { Db } from "../../db/client";
import { isCustomType, type CustomType } from "../../db/tables/crm";
import type { AuthRule } from "../../http/auth";
import { CSRF_HEADER, pageSession } from "../../http/app-session";
import { route } from "../../http/route";
import { checkCsrf, type Session } from "../../http/session";
import { ApiError } from "../../lib/errors";
import { customTypeInfo } from "../../services/crm/object-types";
import { getObject, type CrmRow } from "../../services/crm/records";
import { changedOnly, inputOf, readForm } from "../../services/web/form-values";
import { archiveRecord, createRecord, typeProperties, updateRecord, type TypeProperties } from "../../services/web/properties";
import { customPageType, displayName, isPageType, isRecordType, typeLabel } from "../../services/web/records";
import { deleteBody, formBody, type FormType } from "../../views/forms";
import { appPage, notFoundPage, type Section } from "../../views/layout";
import * as s from "../../schemas/web";

const session: AuthRule = { kinds: ["session"] };
const tag = "Web app";
const page = { 200: { description: "HTML page" }, 302: { description: "Not signed in: to /login?next=..." } };
const posted = {
  303: { description: "Saved: to the page to show next" },
  302: { description: "Not signed in: to /login?next=..." },
  400: { description: "The form with the errors next to their fields (the API's own 400)" },
  403: { description: "CSRF token missing or wrong" },
  404: { description: "Unknown type, or no such record in the account" },
};

/** The type a path names, if it has record pages (built-in or the account's custom type). */
async function formType(db: Db, portalId: number, raw: string): Promise<FormType | null> {
  return isRecordType(raw) ? raw : await customPageType(db, portalId, raw);
}

const sectionOf = (type: FormType): Section => (isPageType(type) ? type : isCustomType(type) ? "home" : "stores");
const requiredOf = (type: FormType) => (isCustomType(type) ? customTypeInfo(type as CustomType).requiredProperties : []);

/** The live record, or null (missing, archived or another account's: the same answer). */
async function recordOf(db: Db, portalId: number, type: FormType, rawId: string): Promise<CrmRow | null> {
  if (!/^\d{1,15}$/.test(rawId)) return null;
  return getObject(db, portalId, type, Number(rawId)).catch((err: unknown) => {
    if (err instanceof ApiError && err.category === "OBJECT_NOT_FOUND") return null;
    throw err;
  });
}

/** The CSRF token of a form post: its `csrf` field, or the header a page script sends. */
function requireCsrf(user: Session, request: Request, body: Record<string, string>) {
  checkCsrf(user, body.csrf || request.headers.get(CSRF_HEADER) || undefined);
}

/**
 * The errors of the API's refusal by field: `context.propertyName` names `properties.<name>`; a duplicate
 * contact email (409) belongs to the email field. Anything else is the form's own error.
 */
function fieldErrors(err: ApiError, type: FormType): Record<string, string> {
  const out: Record<string, string> = {};
  for (const detail of err.init.errors ?? []) {
    const names = (detail.context?.propertyName as string[] | undefined) ?? [];
    const field = names.map((n) => n.replace(/^properties\./, "")).find((n) => n && !n.includes("."));
    if (field) out[field] = out[field] ? `${out[field]} ${detail.message}` : detail.message;
  }
  if (Object.keys(out).length === 0) {
    if (err.category === "CONFLICT" && type === "contacts") out.email = err.message;
    else out[""] = err.message;
  }
  return out;
}

/** Runs a write; the API's 4xx becomes the errors to show (a 5xx stays an error). */
async function attempt(write: () => Promise<unknown>, type: FormType): Promise<{ errors: Record<string, string>; status: number } | null> {
  try {
    await write();
    return null;
  } catch (err) {
    if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.category !== "FORBIDDEN" && err.category !== "RATE_LIMITS") return { errors: fieldErrors(err, type), status: err.status };
    throw err;
  }
}

const seeOther = (location: string) => new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });

interface Shown {
  user: Session;
  type: FormType;
  props: TypeProperties;
  values: Record<string, string>;
  errors?: Record<string, string>;
  record?: CrmRow;
  only?: string;
  status?: number;
}

function formPage(o: Shown): Response {
  const record = o.record ? { id: o.record.id, name: displayName(o.record) } : undefined;
  const title = record ? `Edit ${record.name}` : `New ${typeLabel(o.type).one.toLowerCase()}`;
  const body = formBody({ type: o.type, csrf: o.user.csrfToken, defs: o.props.defs, groups: o.props.groups, values: o.values, errors: o.errors ?? {}, required: requiredOf(o.type), record, only: o.only });
  return appPage({ title, section: sectionOf(o.type), user: o.user, body, status: o.status, scripts: ["error-focus.js"] });
}

/** A stored record's values as the form's inputs show them. */
const inputsOf = (props: TypeProperties, record: CrmRow) => Object.fromEntries(props.defs.map((d) => [d.name, inputOf(d, record.properties[d.name], props.account.timeZone)]));

export const formRoutes = [
  route({
    method: "GET",
    path: "/app/:objectType/new",
    summary: "Form for a new record of a type, built from the type's properties",
    tag,
    auth: session,
    params: s.listParams,
    hidden: true,
    responses: { ...page, 404: { description: "Unknown object type" } },
    handler: async ({ db, control, request, url, now, params }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      const type = await formType(db, user.portalId, params.objectType);
      if (!type) return notFoundPage(user, "home", "There is no such type of record.");
      return formPage({ user, type, props: await typeProperties({ db, control }, user.portalId, type), values: {} });
    },
  }),
  route({
    method: "POST",
    path: "/app/:objectType",
    summary: "Create a record from the form (as POST /crm/v3/objects/{objectType})",
    tag,
    auth: session,
    params: s.listParams,
    bodyFormat: "form",
    body: s.recordForm,
    hidden: true,
    responses: posted,
    handler: async (ctx) => {
      const { db, control, request, url, now, params, body } = ctx;
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      requireCsrf(user, request, body);
      const type = await formType(db, user.portalId, params.objectType);
      if (!type) return notFoundPage(user, "home", "There is no such type of record.");
      const props = await typeProperties({ db, control }, user.portalId, type);
      const form = readForm(body, props.defs, props.account.timeZone);
      const shown = { user, type, props, values: form.inputs };
      if (Object.keys(form.errors).length) return formPage({ ...shown, errors: form.errors, status: 400 });
      let id = 0;
      const failed = await attempt(async () => {
        id = (await createRecord(ctx, user.portalId, type, form.properties)).id;
      }, type);
      if (failed) return formPage({ ...shown, errors: failed.errors, status: failed.status });
      return seeOther(`/app/${type}/${id}`);
    },
  }),
  route({
    method: "GET",
    path: "/app/:objectType/:objectId/edit",
    summary: "Form to edit a record (every property, or one with ?property=)",
    tag,
    auth: session,
    params: s.recordParams,
    query: s.editQuery,
    hidden: true,
    responses: { ...page, 404: { description: "Unknown type, or no such record in the account" } },
    handler: async ({ db, control, request, url, now, params, query }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      const type = await formType(db, user.portalId, params.objectType);
      const record = type && (await recordOf(db, user.portalId, type, params.objectId));
      if (!type || !record) return notFoundPage(user, type ? sectionOf(type) : "home", "There is no such record.");
      const props = await typeProperties({ db, control }, user.portalId, type);
      const only = query.property && props.defs.some((d) => d.name === query.property) ? query.property : undefined;
      return formPage({ user, type, props, record, only, values: inputsOf(props, record) });
    },
  }),
  route({
    method: "POST",
    path: "/app/:objectType/:objectId",
    summary: "Save a record's form, or one property of it (as PATCH /crm/v3/objects/{objectType}/{objectId})",
    tag,
    auth: session,
    params: s.recordParams,
    bodyFormat: "form",
    body: s.recordForm,
    hidden: true,
    responses: posted,
    handler: async (ctx) => {
      const { db, control, request, url, now, params, body } = ctx;
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      requireCsrf(user, request, body);
      const type = await formType(db, user.portalId, params.objectType);
      const record = type && (await recordOf(db, user.portalId, type, params.objectId));
      if (!type || !record) return notFoundPage(user, type ? sectionOf(type) : "home", "There is no such record.");
      const props = await typeProperties({ db, control }, user.portalId, type);
      const form = readForm(body, props.defs, props.account.timeZone);
      // The inline form of one property shows its errors on that property's own page.
      const names = Object.keys(form.inputs);
      const only = body.return === "record" && names.length === 1 ? names[0] : undefined;
      const shown = { user, type, props, record, only, values: { ...inputsOf(props, record), ...form.inputs } };
      if (Object.keys(form.errors).length) return formPage({ ...shown, errors: form.errors, status: 400 });
      const patch = changedOnly(form.properties, record.properties, props.defs, props.account.timeZone);
      const failed = Object.keys(patch).length ? await attempt(() => updateRecord(ctx, user.portalId, type, record.id, patch), type) : null;
      if (failed) return formPage({ ...shown, errors: failed.errors, status: failed.status });
      return seeOther(`/app/${type}/${record.id}${only ? `#prop-${encodeURIComponent(only)}` : ""}`);
    },
  }),
  route({
    method: "GET",
    path: "/app/:objectType/:objectId/delete",
    summary: "Asks to confirm the deletion of a record",
    tag,
    auth: session,
    params: s.recordParams,
    hidden: true,
    responses: { ...page, 404: { description: "Unknown type, or no such record in the account" } },
    handler: async ({ db, control, request, url, now, params }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      const type = await formType(db, user.portalId, params.objectType);
      const record = type && (await recordOf(db, user.portalId, type, params.objectId));
      if (!type || !record) return notFoundPage(user, type ? sectionOf(type) : "home", "There is no such record.");
      const name = displayName(record);
      return appPage({ title: `Delete ${name}`, section: sectionOf(type), user, body: deleteBody(type, { id: record.id, name }, user.csrfToken) });
    },
  }),
  route({
    method: "POST",
    path: "/app/:objectType/:objectId/delete",
    summary: "Delete (archive) a record (as DELETE /crm/v3/objects/{objectType}/{objectId})",
    tag,
    auth: session,
    params: s.recordParams,
    bodyFormat: "form",
    body: s.recordForm,
    hidden: true,
    responses: { ...posted, 303: { description: "Deleted: to the type's list (products and line items: the start page)" } },
    handler: async (ctx) => {
      const { db, control, request, url, now, params, body } = ctx;
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      requireCsrf(user, request, body);
      const type = await formType(db, user.portalId, params.objectType);
      const record = type && (await recordOf(db, user.portalId, type, params.objectId));
      if (!type || !record) return notFoundPage(user, type ? sectionOf(type) : "home", "There is no such record.");
      await archiveRecord(ctx, user.portalId, type, record.id);
      return seeOther(isPageType(type) || isCustomType(type) ? `/app/${type}` : "/app");
    },
  }),
];
