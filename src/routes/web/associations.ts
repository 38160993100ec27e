/**
 * @module The record page's associations (docs/reference/web.md, "Working on a record"): find a record of
 * another type by name and associate it, with one of the pair's labels or none, and remove an association.
 * Writes go through the services of the v3/v4 associations API (src/services/crm/associations.ts): both
 * records must be live records of the account, a label must be one of the pair's, the account's
 * association limits hold; nothing is written otherwise.
 */
import type { AuthRule } from "../../http/auth";
import { route } from "../../http/route";
import { ApiError } from "../../lib/errors";
import { escapeHtml } from "../../lib/html";
import { categoryOf } from "../../services/crm/association-definitions";
import { writeWithEvents } from "../../services/webhooks/write";
import { associateRecords, dissociateRecords, requireRecords, resolveTypes, writeAssociations } from "../../services/crm/associations";
import { associableTypes, associatedAmong, labelChoices } from "../../services/web/record-work";
import { displayName, type PageType } from "../../services/web/records";
import { listPage } from "../../services/web/lists";
import { associatePageBody } from "../../views/association-forms";
import { appPage, notFoundPage } from "../../views/layout";
import * as s from "../../schemas/web";
import { fieldErrors, seeOther, workingRecord, type WorkingRecord } from "./record-forms";

const session: AuthRule = { kinds: ["session"] };
const tag = "Web app";
const refusals = {
  302: { description: "Not signed in: to /login?next=..." },
  400: { description: "A type the record cannot be associated with, a label that is not the pair's, a limit reached", html: true },
  403: { description: "The form's CSRF token is missing or wrong", html: true },
  404: { description: "No such record in the account (either end)", html: true },
};

/** A refused association: what the API said, by field, and the way back (nothing was written). */
function refused(w: WorkingRecord, errors: Record<string, string>, status = 400): Response {
  const name = displayName(w.record);
  const lines = Object.values(errors).map((m) => `<p class="error">${escapeHtml(m)}</p>`).join("");
  return appPage({
    title: "Not associated",
    section: w.type,
    user: w.user,
    status,
    body: `<h1>Not associated</h1><div class="form-errors" role="alert">${lines}</div><p><a href="${escapeHtml(w.path)}#assoc-h">Back to ${escapeHtml(name)}</a></p>`,
  });
}

/** An ApiError of the services as the page's answer: a 404 is the record page's 404, a 400 the refusal page. */
function answerOf(w: WorkingRecord, err: unknown): Response {
  if (err instanceof ApiError && err.category === "OBJECT_NOT_FOUND") return notFoundPage(w.user, w.type, "There is no such record.");
  if (err instanceof ApiError && err.status === 400) return refused(w, fieldErrors(err, { associationTypeId: "typeId" }));
  throw err;
}

export const associationRoutes = [
  route({
    method: "GET",
    path: "/app/:objectType/:objectId/associate",
    summary: "Find a record of another type by name, to associate it with this one",
    tag,
    auth: session,
    params: s.recordParams,
    query: s.associateQuery,
    hidden: true,
    responses: { 200: { description: "HTML page" }, ...refusals },
    handler: async (ctx) => {
      const { db, params, query } = ctx;
      const w = await workingRecord(ctx, params, false);
      if (w instanceof Response) return w;
      const associable = associableTypes(w.type);
      const type = (query.type ?? associable[0] ?? "") as PageType;
      if (!associable.includes(type)) return refused(w, { type: `type must be one of ${associable.join(", ")}` });
      const q = query.q?.trim() ?? "";
      const { rows, next } = await listPage(db, w.user.portalId, type, { filters: [], q: q || undefined });
      const hasMore = next !== null;
      const [labels, associated] = await Promise.all([
        labelChoices(db, w.user.portalId, w.type, type),
        associatedAmong(db, w.user.portalId, w.record.id, type, rows.map((r) => r.id)),
      ]);
      return appPage({
        title: `Associate · ${displayName(w.record)}`,
        section: w.type,
        user: w.user,
        body: associatePageBody({ record: w.record, path: w.path, csrf: w.user.csrfToken, type, associable, q, rows, hasMore, labels, associated }),
      });
    },
  }),
  route({
    method: "POST",
    path: "/app/:objectType/:objectId/associations",
    summary: "Associate a record of another type with this one, with a label or the pair's default",
    tag,
    auth: session,
    params: s.recordParams,
    body: s.formBody,
    bodyFormat: "form",
    hidden: true,
    responses: { 303: { description: "Associated: back to the record page" }, ...refusals },
    handler: async (ctx) => {
      const { db, params, body } = ctx;
      const w = await workingRecord(ctx, params, body.csrf);
      if (w instanceof Response) return w;
      const toType = (body.toType ?? "") as PageType;
      if (!associableTypes(w.type).includes(toType)) return refused(w, { toType: `toType must be one of ${associableTypes(w.type).join(", ")}` });
      if (!/^\d{1,15}$/.test(body.toId ?? "")) return refused(w, { toId: "toId must be a record id" });
      const from = { type: w.type, id: w.record.id };
      const to = { type: toType, id: Number(body.toId) };
      const portalId = w.user.portalId;
      try {
        if (!body.typeId) {
          // The pair's default (unlabelled) type, as the v3 PUT and the v4 default PUT write it.
          await writeWithEvents(ctx, portalId, (outbox) => associateRecords(db, portalId, from, to, outbox));
        } else {
          // A label, as the v4 PUT writes it: one of the pair's types, both records the account's, within the limits.
          if (!/^\d{1,10}$/.test(body.typeId)) return refused(w, { typeId: "typeId must be an association type id" });
          const typeId = Number(body.typeId);
          const types = await resolveTypes(db, portalId, from.type, to.type, [{ category: categoryOf(typeId), typeId, at: "typeId" }]);
          const pair = { fromId: from.id, toId: to.id };
          await requireRecords(db, portalId, from.type, to.type, [pair]);
          await writeWithEvents(ctx, portalId, (outbox) => writeAssociations(db, portalId, from.type, to.type, [{ ...pair, types }], outbox));
        }
      } catch (err) {
        return answerOf(w, err);
      }
      return seeOther(`${w.path}#assoc-h`);
    },
  }),
  route({
    method: "POST",
    path: "/app/:objectType/:objectId/associations/:toObjectType/:toObjectId/remove",
    summary: "Remove the association between this record and another",
    tag,
    auth: session,
    params: s.associationParams,
    body: s.formBody,
    bodyFormat: "form",
    hidden: true,
    responses: { 303: { description: "Removed: back to the record page" }, ...refusals },
    handler: async (ctx) => {
      const { db, params, body } = ctx;
      const w = await workingRecord(ctx, params, body.csrf);
      if (w instanceof Response) return w;
      const toType = params.toObjectType as PageType;
      if (!associableTypes(w.type).includes(toType) || !/^\d{1,15}$/.test(params.toObjectId)) return notFoundPage(w.user, w.type, "There is no such record.");
      try {
        const portalId = w.user.portalId;
        await writeWithEvents(ctx, portalId, (outbox) => dissociateRecords(db, portalId, { type: w.type, id: w.record.id }, { type: toType, id: Number(params.toObjectId) }, outbox));
      } catch (err) {
        return answerOf(w, err);
      }
      return seeOther(`${w.path}#assoc-h`);
    },
  }),
];
