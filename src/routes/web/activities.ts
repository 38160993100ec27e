/**
 * @module The record page's activity forms (docs/reference/web.md, "Working on a record"): log a note, create
 * a task, log a call, a meeting, an email, a message or postal mail associated with the record; edit one;
 * mark a task complete; delete one.
 * Every write goes through the services of `/crm/v3/objects/{notes,tasks,calls,meetings}` (the same value
 * checks, the record's association in the create's batch, webhook events in the same batch as the write),
 * then answers 303 back to the record page. A refused form is shown again, alone, with its errors (400).
 */
import type { AuthRule } from "../../http/auth";
import type { Session } from "../../http/session";
import { route } from "../../http/route";
import { ApiError } from "../../lib/errors";
import { escapeHtml } from "../../lib/html";
import { archiveObject, createObject, updateObject } from "../../services/crm/records";
import { checkRequired } from "../../services/crm/object-types";
import { checkValues } from "../../services/crm/values";
import { writeWithEvents } from "../../services/webhooks/write";
import { requireAccount } from "../../services/accounts/tenancy";
import { activityFormValues, activityPatch, activityProperties, FIELD_OF_PROPERTY, FORM_KINDS, isFormKind, type FormKind } from "../../services/web/activity-input";
import { activityOfRecord, ownerChoices } from "../../services/web/record-work";
import { displayName } from "../../services/web/records";
import { activityForm, FORM_TITLE, type EditOf } from "../../views/activity-forms";
import type { FormState } from "../../views/form-fields";
import { appPage, notFoundPage } from "../../views/layout";
import * as s from "../../schemas/web";
import { fieldErrors, postedValues, seeOther, workingRecord, type WorkingRecord } from "./record-forms";

const session: AuthRule = { kinds: ["session"] };
const tag = "Web app";
const refusals = {
  302: { description: "Not signed in: to /login?next=..." },
  400: { description: "A field is missing or not valid: the form again with its errors", html: true },
  403: { description: "The form's CSRF token is missing or wrong", html: true },
  404: { description: "No such record (or activity of the record) in the account", html: true },
};

/**
 * An activity's form on a page of its own: a new one's form shown again with what was posted and the errors
 * beside their fields (400, nothing was written), or an existing one's to edit (`edit`).
 */
async function formPage(c: { control: Parameters<typeof ownerChoices>[0] }, w: WorkingRecord, kind: FormKind, state: FormState, edit?: EditOf): Promise<Response> {
  const owners = kind === "tasks" ? await ownerChoices(c.control, w.user.portalId) : [];
  const name = displayName(w.record);
  const work = { path: w.path, csrf: w.user.csrfToken, owners, email: w.user.email };
  const refused = Object.keys(state.errors).length > 0;
  const heading = edit ? `Edit ${FORM_TITLE[kind].one} on ${name}` : `${FORM_TITLE[kind].open} on ${name}`;
  return appPage({
    title: `${edit ? `Edit ${FORM_TITLE[kind].one}` : FORM_TITLE[kind].open} · ${name}`,
    section: w.type,
    user: w.user,
    status: refused ? 400 : 200,
    body: `<nav class="crumbs" aria-label="Breadcrumb"><a href="${escapeHtml(w.path)}">${escapeHtml(name)}</a></nav><h1>${escapeHtml(heading)}</h1>
${refused ? `<p class="error" role="alert">Nothing was saved: correct the fields below.</p>` : ""}${activityForm(kind, work, state, edit)}<p><a href="${escapeHtml(w.path)}#activities-h">Back to ${escapeHtml(name)}</a></p>`,
    scripts: ["time-zone.js"],
  });
}

/** A plain 400 page (a request no form of the page sends). */
const badPost = (user: Session, w: WorkingRecord, text: string) =>
  appPage({ title: "Not done", section: w.type, user, status: 400, body: `<h1>Not done</h1><p>${escapeHtml(text)}</p><p><a href="${escapeHtml(w.path)}">Back to ${escapeHtml(displayName(w.record))}</a></p>` });

/**
 * The record and the activity the path names (a live activity of the account associated with the record),
 * after the session and the CSRF token (`false`: a page, no token); else the response that ends the request.
 */
async function recordActivity(ctx: Parameters<typeof workingRecord>[0], params: { objectType: string; objectId: string; activityId: string }, csrf: string | undefined | false) {
  const w = await workingRecord(ctx, params, csrf);
  if (w instanceof Response) return w;
  const raw = params.activityId;
  const activity = /^\d{1,15}$/.test(raw) ? await activityOfRecord(ctx.db, w.user.portalId, w.record.id, Number(raw)) : null;
  return activity ? { w, activity } : notFoundPage(w.user, w.type, "There is no such activity on this record.");
}

/** What every POST on one activity of the record declares: a session's form, hidden from /openapi.json. */
const onActivity = { tag, auth: session, params: s.activityParams, body: s.formBody, bodyFormat: "form" as const, hidden: true };

export const activityRoutes = [
  route({
    method: "POST",
    path: "/app/:objectType/:objectId/activities",
    summary: "Log an activity (note, call, meeting, email, message, postal mail) or create a task, associated with the record",
    tag,
    auth: session,
    params: s.recordParams,
    body: s.formBody,
    bodyFormat: "form",
    hidden: true,
    responses: { 303: { description: "Created: back to the record page" }, ...refusals },
    handler: async (ctx) => {
      const { db, params, body, now } = ctx;
      const w = await workingRecord(ctx, params, body.csrf);
      if (w instanceof Response) return w;
      const kind = body.kind ?? "";
      if (!isFormKind(kind)) return badPost(w.user, w, `kind must be one of ${FORM_KINDS.join(", ")}.`);
      const values = postedValues(body);
      const input = activityProperties(kind, values, now);
      if (!input.ok) return formPage(ctx, w, kind, { values, errors: input.errors });
      const portalId = w.user.portalId;
      try {
        // The checks of POST /crm/v3/objects/{type}: an owner of the account, the options of enumerations, hs_timestamp.
        checkRequired(kind, input.properties);
        await checkValues(ctx, portalId, kind, [{ properties: input.properties, at: "", create: true }]);
      } catch (err) {
        if (err instanceof ApiError && err.status === 400) return formPage(ctx, w, kind, { values, errors: fieldErrors(err, FIELD_OF_PROPERTY[kind]) });
        throw err;
      }
      // The activity and its association with the record in one batch, with its creation event.
      await writeWithEvents(ctx, portalId, (outbox) => createObject(db, portalId, kind, input.properties, now, [{ type: w.type, id: w.record.id }], outbox), "CRM");
      return seeOther(`${w.path}#activities-h`);
    },
  }),
  route({
    method: "GET",
    path: "/app/:objectType/:objectId/activities/:activityId/edit",
    summary: "Form to edit an activity of the record",
    tag,
    auth: session,
    params: s.activityParams,
    hidden: true,
    responses: { 200: { description: "The form, filled with the activity's values", html: true }, 302: refusals[302], 404: refusals[404] },
    handler: async (ctx) => {
      const found = await recordActivity(ctx, ctx.params, false);
      if (found instanceof Response) return found;
      const { w, activity } = found;
      const kind = activity.objectType;
      // Every activity the record page lists is one of the forms' kinds.
      if (!isFormKind(kind)) return notFoundPage(w.user, w.type, "There is no such activity on this record.");
      const { timeZone } = await requireAccount(ctx.control, w.user.portalId);
      const { values, instants } = activityFormValues(kind, activity.properties, timeZone);
      return formPage(ctx, w, kind, { values, errors: {} }, { id: activity.id, instants });
    },
  }),
  route({
    method: "POST",
    path: "/app/:objectType/:objectId/activities/:activityId",
    summary: "Save an edited activity of the record (as PATCH /crm/v3/objects/{type}/{id})",
    ...onActivity,
    responses: { 303: { description: "Saved: back to the record page" }, ...refusals },
    handler: async (ctx) => {
      const { db, params, body, now } = ctx;
      const found = await recordActivity(ctx, params, body.csrf);
      if (found instanceof Response) return found;
      const { w, activity } = found;
      const kind = activity.objectType;
      if (!isFormKind(kind)) return notFoundPage(w.user, w.type, "There is no such activity on this record.");
      const values = postedValues(body);
      const edit = { id: activity.id, instants: {} };
      const input = activityPatch(kind, values, now, activity.properties);
      if (!input.ok) return formPage(ctx, w, kind, { values, errors: input.errors }, edit);
      const patch = input.properties;
      if (Object.keys(patch).length) {
        const portalId = w.user.portalId;
        try {
          // The checks of PATCH /crm/v3/objects/{type}/{id}: an owner of the account, the options of enumerations.
          await checkValues(ctx, portalId, kind, [{ properties: patch, at: "", id: activity.id }]);
        } catch (err) {
          if (err instanceof ApiError && err.status === 400) return formPage(ctx, w, kind, { values, errors: fieldErrors(err, FIELD_OF_PROPERTY[kind]) }, edit);
          throw err;
        }
        await writeWithEvents(ctx, portalId, (outbox) => updateObject(db, portalId, kind, activity.id, patch, now, outbox), "CRM");
      }
      return seeOther(`${w.path}#activities-h`);
    },
  }),
  route({
    method: "POST",
    path: "/app/:objectType/:objectId/activities/:activityId/complete",
    summary: "Mark a task of the record completed",
    ...onActivity,
    responses: { 303: { description: "Completed: back to the record page" }, ...refusals },
    handler: async (ctx) => {
      const { db, params, body, now } = ctx;
      const found = await recordActivity(ctx, params, body.csrf);
      if (found instanceof Response) return found;
      const { w, activity: task } = found;
      if (task.objectType !== "tasks") return badPost(w.user, w, "Only a task can be marked complete.");
      // Completing a completed task changes nothing (no event); the real service stamps the completion date.
      if (task.properties.hs_task_status !== "COMPLETED") {
        const patch = { hs_task_status: "COMPLETED", hs_task_completion_date: new Date(now).toISOString() };
        await writeWithEvents(ctx, w.user.portalId, (outbox) => updateObject(db, w.user.portalId, "tasks", task.id, patch, now, outbox), "CRM");
      }
      return seeOther(`${w.path}#activities-h`);
    },
  }),
  route({
    method: "POST",
    path: "/app/:objectType/:objectId/activities/:activityId/delete",
    summary: "Delete (archive) an activity of the record",
    ...onActivity,
    responses: { 303: { description: "Deleted: back to the record page" }, ...refusals },
    handler: async (ctx) => {
      const { db, params, body, now } = ctx;
      const found = await recordActivity(ctx, params, body.csrf);
      if (found instanceof Response) return found;
      const { w, activity } = found;
      await writeWithEvents(ctx, w.user.portalId, (outbox) => archiveObject(db, w.user.portalId, activity.objectType, activity.id, now, outbox), "CRM");
      return seeOther(`${w.path}#activities-h`);
    },
  }),
];
