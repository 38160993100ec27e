/**
 * @module `POST /crm/v3/objects/{objectType}/batch/{create,read,update,upsert,archive}` (docs/reference/crm.md
 * "Batch"): at most 100 inputs; bad input anywhere is a 400 before anything is written; inputs naming no
 * record are a 207 with `errors` and `numErrors` beside the results.
 */
import type { ObjectType } from "../../db/tables/crm";
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { badRequest } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import * as crm from "../../services/crm/records";
import * as batch from "../../services/crm/batch";
import { answeredProperties } from "../../services/crm/properties";
import { checkValues, requireActivityTime } from "../../services/crm/values";
import { checkRequired } from "../../services/crm/object-types";
import { writeWithEvents } from "../../services/webhooks/write";
import { associationTargets, present } from "./objects";
import * as s from "../../schemas/crm/batch";
import { typeParams } from "../../schemas/crm/objects";
import { completedAt } from "../../services/testkit/clock";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM objects";
const base = "/crm/v3/objects/:objectType/batch";

/** The batch envelope; with errors, the status the route answers is 207. */
function answer<T>(startedAt: number, results: T[], errors: batch.BatchError[], ok: number) {
  const body: Record<string, unknown> = { status: "COMPLETE", results, startedAt: new Date(startedAt).toISOString(), completedAt: completedAt(startedAt) };
  if (errors.length) Object.assign(body, { numErrors: errors.reduce((n, e) => n + (e.context.ids?.length ?? 1), 0), errors });
  return json(body, errors.length ? 207 : ok);
}

const partial = { 207: { description: "Some inputs named no record: the others' results, and errors with numErrors", schema: s.batchObjectsResponse } };

export const crmBatchRoutes = [
  route({
    method: "POST",
    path: `${base}/create`,
    summary: "Create up to 100 records (all or none)",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchCreateBody,
    responses: {
      201: { description: "Created", schema: s.batchObjectsResponse },
      409: { description: "A contact with one of the emails exists: `Contact already exists. Existing ID: <id>` (CONFLICT); nothing is created" },
    },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const type: ObjectType = params.objectType;
      requireScopes(principal, [crm.scopeFor(type, "write")]);
      const portalId = portalOf(principal);
      body.inputs.forEach((input, i) => checkRequired(type, input.properties, `inputs.${i}.`));
      await checkValues(ctx, portalId, type, body.inputs.map((input, i) => ({ properties: input.properties, at: `inputs.${i}.`, create: true })));
      const inputs: batch.CreateInput[] = [];
      for (const [i, input] of body.inputs.entries()) {
        const targets = await associationTargets(db, principal, portalId, type, input.associations ?? [], `inputs.${i}.`);
        inputs.push({ properties: input.properties, associations: targets });
      }
      const rows = await writeWithEvents(ctx, portalId, (outbox) => batch.batchCreate(db, portalId, type, inputs, now, outbox));
      return answer(now, rows.map((r) => present(r)), [], 201);
    },
  }),
  route({
    method: "POST",
    path: `${base}/read`,
    summary: "Read up to 100 records by id, or by a unique property with idProperty (email on contacts, a hasUniqueValue property)",
    tag,
    auth: account,
    params: typeParams,
    query: s.batchReadQuery,
    body: s.batchReadBody,
    responses: { 200: { description: "The records", schema: s.batchObjectsResponse }, ...partial },
    handler: async ({ db, principal, params, query, body, now }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "read")]);
      const portalId = portalOf(principal);
      const idProperty = await batch.resolveIdProperty(db, portalId, params.objectType, body.idProperty, "idProperty");
      const out = await batch.batchRead(db, portalId, params.objectType, idProperty, body.inputs.map((i) => i.id), query.archived);
      const names = answeredProperties(params.objectType, body.properties);
      return answer(now, out.results.map((r) => present(r, undefined, names)), out.errors, 200);
    },
  }),
  route({
    method: "POST",
    path: `${base}/update`,
    summary: "Update up to 100 records' properties (an empty string clears one)",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchUpdateBody,
    responses: {
      200: { description: "The updated records", schema: s.batchObjectsResponse },
      ...partial,
      409: { description: "An email another contact holds (CONFLICT); nothing is updated" },
    },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const type: ObjectType = params.objectType;
      requireScopes(principal, [crm.scopeFor(type, "write")]);
      const portalId = portalOf(principal);
      const inputs: batch.UpdateInput[] = [];
      for (const [i, inp] of body.inputs.entries()) inputs.push({ ...inp, idProperty: await batch.resolveIdProperty(db, portalId, type, inp.idProperty, `inputs.${i}.idProperty`) });
      // An id given by another idProperty names its record by that key (the unique-value check resolves it).
      await checkValues(
        ctx,
        portalId,
        type,
        inputs.map((input, i) => ({
          properties: input.properties,
          at: `inputs.${i}.`,
          ...(input.idProperty === "hs_object_id" ? { id: /^\d{1,15}$/.test(input.id) ? Number(input.id) : undefined } : { key: { name: input.idProperty, value: input.id } }),
        })),
      );
      const out = await writeWithEvents(ctx, portalId, (outbox) => batch.batchUpdate(db, portalId, type, inputs, now, outbox));
      return answer(now, out.results.map((r) => present(r)), out.errors, 200);
    },
  }),
  route({
    method: "POST",
    path: `${base}/upsert`,
    summary: "Create or update up to 100 records by a unique property (email on contacts, or a property with hasUniqueValue); existing ones keep their ids",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchUpsertBody,
    responses: { 200: { description: "The records; `new` says which were created", schema: s.batchUpsertResponse } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const type: ObjectType = params.objectType;
      requireScopes(principal, [crm.scopeFor(type, "write")]);
      const portalId = portalOf(principal);
      // One batch upserts by one property: the inputs' keys are matched in one lookup.
      const given = body.inputs[0]!.idProperty;
      const other = body.inputs.findIndex((input) => input.idProperty !== given);
      if (other >= 0) {
        throw badRequest(`inputs.${other}.idProperty: every input of an upsert names the same idProperty (${given})`, {
          errors: [{ message: `inputs.${other}.idProperty: not ${given}`, in: "body", context: { propertyName: [`inputs.${other}.idProperty`] } }],
        });
      }
      if (given === "hs_object_id") {
        throw badRequest("inputs.0.idProperty: an upsert names a unique property whose value a new record takes, not hs_object_id", {
          errors: [{ message: "inputs.0.idProperty: hs_object_id cannot be upserted by", in: "body", context: { propertyName: ["inputs.0.idProperty"] } }],
        });
      }
      const idProperty = await batch.resolveIdProperty(db, portalId, type, given, "inputs.0.idProperty");
      batch.requireDistinctKeys(idProperty, body.inputs.map((input) => input.id));
      const writes = body.inputs.map((input, i) => ({ properties: { ...input.properties, [idProperty]: input.id }, at: `inputs.${i}.`, key: { name: idProperty, value: input.id }, create: true }));
      await checkValues(ctx, portalId, type, writes);
      // What a created record needs (a custom type's required properties, an activity's time) is known
      // only once the upsert has found which inputs create.
      const checkCreate = (props: Record<string, string>, at: string) => {
        checkRequired(type, props, at);
        requireActivityTime(type, props, at);
      };
      const rows = await writeWithEvents(ctx, portalId, (outbox) => batch.batchUpsert(db, portalId, type, idProperty, body.inputs, now, outbox, checkCreate));
      return answer(now, rows.map((r) => ({ ...present(r.row), new: r.created })), [], 200);
    },
  }),
  route({
    method: "POST",
    path: `${base}/archive`,
    summary: "Archive up to 100 records (ids of no record are ignored)",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchArchiveBody,
    responses: { 204: { description: "Archived" } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const portalId = portalOf(principal);
      await writeWithEvents(ctx, portalId, (outbox) => batch.batchArchive(db, portalId, params.objectType, body.inputs.map((i) => i.id), now, outbox));
      return noContent();
    },
  }),
];
