/**
 * @module Associations batch `/crm/v4/associations/{from}/{to}/batch/{read,create,archive,associate/default,labels/archive}`
 * and v3 `/crm/v3/associations/{from}/{to}/batch/{read,create,archive}` and `/types` (docs/reference/crm.md
 * "Associations batch"). Reads take up to 1000 ids and are one D1 round trip; writes take up to 100 inputs,
 * are checked whole (a 400 or 404 names the first bad input, nothing written) and written in one batch.
 */
import type { ObjectType } from "../../db/tables/crm";
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { route } from "../../http/route";
import { badRequest } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import type { Principal } from "../../lib/principal";
import { listTypes } from "../../services/crm/association-definitions";
import { pairDefault } from "../../services/crm/association-types";
import { readAssociations, removeAssociations, removeTypes, requireRecords, resolveTypes, writeAssociations, type FromResult, type TypedPair } from "../../services/crm/associations";
import * as crm from "../../services/crm/records";
import { typeIdOf } from "../../schemas/crm/associations-v4";
import * as s from "../../schemas/crm/association-labels";
import { completedAt } from "../../services/testkit/clock";
import { writeWithEvents } from "../../services/webhooks/write";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM associations batch";
const v4 = "/crm/v4/associations/:fromObjectType/:toObjectType";
const v3 = "/crm/v3/associations/:fromObjectType/:toObjectType";

/** A batch read answers at most this many associations per record, then paging.next.after. */
const PAGE = 500;

const reading = (principal: Principal, from: ObjectType, to: ObjectType) => requireScopes(principal, [crm.scopeFor(from, "read"), crm.scopeFor(to, "read")]);
const writing = (principal: Principal, from: ObjectType, to: ObjectType) => requireScopes(principal, [crm.scopeFor(from, "write"), crm.scopeFor(to, "read")]);

const iso = (at: number) => new Date(at).toISOString();

/**
 * The batch envelope of a read. An id that is not a live record of the account, or that has no
 * associations of the asked type, is an error entry (the real service's 207 with `NO_ASSOCIATIONS_FOUND`
 * for the latter), so the answer is 207 when there is any.
 */
function readAnswer<T>(startedAt: number, from: ObjectType, to: ObjectType, rows: FromResult[], present: (r: FromResult) => T) {
  const results = rows.filter((r) => r.found && r.to.length).map(present);
  const missing = rows.filter((r) => !r.found).map((r) => String(r.id));
  const empty = rows.filter((r) => r.found && !r.to.length).map((r) => String(r.id));
  const errors = [
    ...(missing.length
      ? [{ status: "error", category: "OBJECT_NOT_FOUND", message: `Could not get some ${from} objects, they may be deleted or not exist.`, context: { ids: missing }, errors: [], links: {} }]
      : []),
    ...empty.map((id) => ({ status: "error", category: "OBJECT_NOT_FOUND", subCategory: "crm.associations.NO_ASSOCIATIONS_FOUND", message: `No ${to} is associated with ${from} ${id}.`, context: { fromObjectId: [id] }, errors: [], links: {} })),
  ];
  const body: Record<string, unknown> = { status: "COMPLETE", results, startedAt: iso(startedAt), completedAt: completedAt(startedAt) };
  if (errors.length) Object.assign(body, { numErrors: missing.length + empty.length, errors });
  return json(body, errors.length ? 207 : 200);
}

const paging = (r: FromResult) => (r.next === undefined ? {} : { paging: { next: { after: String(r.next) } } });

/** The specs of every input, checked against the pair's types (one query for all). */
async function typedPairs(db: Parameters<typeof listTypes>[0], portalId: number, from: ObjectType, to: ObjectType, inputs: { from: { id: number }; to: { id: number }; types: { associationCategory: "HUBSPOT_DEFINED" | "USER_DEFINED"; associationTypeId: number }[] }[]): Promise<TypedPair[]> {
  const specs = inputs.flatMap((input, i) => input.types.map((t, j) => ({ category: t.associationCategory, typeId: t.associationTypeId, at: `inputs.${i}.types.${j}.associationTypeId` })));
  const types = await resolveTypes(db, portalId, from, to, specs);
  let k = 0;
  return inputs.map((input) => ({ fromId: input.from.id, toId: input.to.id, types: input.types.map(() => types[k++]!) }));
}

/** The pair's default type (a custom type's from its schema's definitions); a 400 when the pair has none. */
const defaultOf = (from: ObjectType, to: ObjectType) => {
  const type = pairDefault(from, to);
  if (type === null) throw badRequest(`No association type exists from ${from} to ${to}`, { errors: [{ message: "no association type", in: "path", context: { propertyName: ["toObjectType"] } }] });
  return type;
};

const v4Routes = [
  route({
    method: "POST",
    path: `${v4}/batch/read`,
    summary: "The associations of up to 1000 records to one type, with their types",
    tag,
    auth: account,
    params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
    body: s.readBody,
    responses: {
      200: { description: "Every record's associations", schema: s.readResponse },
      207: { description: "Some ids named no record or had no associations: errors with numErrors", schema: s.readResponse },
    },
    handler: async ({ db, principal, params, body, now }) => {
      const { fromObjectType: from, toObjectType: to } = params;
      reading(principal, from, to);
      const rows = await readAssociations(db, portalOf(principal), from, to, body.inputs.map((i) => ({ id: i.id, after: i.after ?? 0 })), PAGE);
      return readAnswer(now, from, to, rows, (r) => ({ from: { id: String(r.id) }, to: r.to, ...paging(r) }));
    },
  }),
  route({
    method: "POST",
    path: `${v4}/batch/create`,
    summary: "Associate up to 100 pairs with association types (built-in or the account's labels)",
    tag,
    auth: account,
    params: s.pairParams,
    body: s.createBody,
    responses: { 201: { description: "Associated", schema: s.createResponse } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const { fromObjectType: from, toObjectType: to } = params;
      writing(principal, from, to);
      const portalId = portalOf(principal);
      const pairs = await typedPairs(db, portalId, from, to, body.inputs);
      await requireRecords(db, portalId, from, to, pairs);
      await writeWithEvents(ctx, portalId, (outbox) => writeAssociations(db, portalId, from, to, pairs, outbox));
      const results = pairs.map((p) => ({
        fromObjectTypeId: typeIdOf(from),
        fromObjectId: p.fromId,
        toObjectTypeId: typeIdOf(to),
        toObjectId: p.toId,
        labels: p.types.flatMap((t) => (t.label === null ? [] : [t.label])),
      }));
      return json({ status: "COMPLETE", results, startedAt: iso(now), completedAt: completedAt(now) }, 201);
    },
  }),
  route({
    method: "POST",
    path: `${v4}/batch/associate/default`,
    summary: "Associate up to 100 pairs with the pair's default (unlabelled) type",
    tag,
    auth: account,
    params: s.pairParams,
    body: s.defaultBody,
    responses: { 200: { description: "Associated", schema: s.defaultResponse } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const { fromObjectType: from, toObjectType: to } = params;
      writing(principal, from, to);
      const { category, typeId } = defaultOf(from, to);
      const portalId = portalOf(principal);
      const pairs = body.inputs.map((i) => ({ fromId: i.from.id, toId: i.to.id, types: [] }));
      await requireRecords(db, portalId, from, to, pairs);
      await writeWithEvents(ctx, portalId, (outbox) => writeAssociations(db, portalId, from, to, pairs, outbox));
      const results = pairs.map((p) => ({ from: { id: String(p.fromId) }, to: { id: String(p.toId) }, associationSpec: { associationCategory: category, associationTypeId: typeId } }));
      return json({ status: "COMPLETE", results, startedAt: iso(now), completedAt: completedAt(now) });
    },
  }),
  route({
    method: "POST",
    path: `${v4}/batch/archive`,
    summary: "Remove every association (and label) of up to 100 records to the listed records",
    tag,
    auth: account,
    params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
    body: s.archiveBody,
    responses: { 204: { description: "Removed (pairs that were not associated are ignored)" } },
    handler: async (ctx) => {
      const { db, principal, params, body } = ctx;
      const { fromObjectType: from, toObjectType: to } = params;
      requireScopes(principal, [crm.scopeFor(from, "write")]);
      const pairs = body.inputs.flatMap((i) => i.to.map((t) => ({ fromId: i.from.id, toId: t.id })));
      const portalId = portalOf(principal);
      await writeWithEvents(ctx, portalId, (outbox) => removeAssociations(db, portalId, from, to, pairs, outbox));
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: `${v4}/batch/labels/archive`,
    summary: "Take labels off up to 100 pairs, keeping their default associations (the default type removes the association)",
    tag,
    auth: account,
    params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
    body: s.createBody,
    responses: { 204: { description: "Removed" } },
    handler: async (ctx) => {
      const { db, principal, params, body } = ctx;
      const { fromObjectType: from, toObjectType: to } = params;
      requireScopes(principal, [crm.scopeFor(from, "write")]);
      const portalId = portalOf(principal);
      const pairs = await typedPairs(db, portalId, from, to, body.inputs);
      await writeWithEvents(ctx, portalId, (outbox) => removeTypes(db, portalId, from, to, pairs, outbox));
      return noContent();
    },
  }),
];

/** The v3 name of a pair's default type (`contact_to_company`), which v3 inputs may give as `type`. */
const v3Name = (from: ObjectType, to: ObjectType) => `${singular(from)}_to_${singular(to)}`;
const singular = (type: ObjectType) => (type === "companies" ? "company" : type.replace(/s$/, ""));

/** v3 inputs name the pair's default type, by name or id (absent is the default too). */
function v3Pairs(from: ObjectType, to: ObjectType, inputs: { from: { id: number }; to: { id: number }; type?: string }[]) {
  const { typeId } = defaultOf(from, to);
  inputs.forEach((input, i) => {
    if (input.type !== undefined && input.type !== v3Name(from, to) && input.type !== String(typeId)) {
      throw badRequest(`type ${input.type} is not an association type from ${from} to ${to} (${v3Name(from, to)})`, { errors: [{ message: "unknown type", in: "body", context: { propertyName: [`inputs.${i}.type`] } }] });
    }
  });
  return inputs.map((i) => ({ fromId: i.from.id, toId: i.to.id, types: [] }));
}

const v3Routes = [
  route({
    method: "POST",
    path: `${v3}/batch/read`,
    summary: "The associations of up to 1000 records to one type (v3)",
    tag,
    auth: account,
    params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
    body: s.v3ReadBody,
    responses: {
      200: { description: "Every record's associations", schema: s.v3ReadResponse },
      207: { description: "Some ids named no record or had no associations: errors with numErrors", schema: s.v3ReadResponse },
    },
    handler: async ({ db, principal, params, body, now }) => {
      const { fromObjectType: from, toObjectType: to } = params;
      reading(principal, from, to);
      const rows = await readAssociations(db, portalOf(principal), from, to, body.inputs.map((i) => ({ id: i.id, after: 0 })), PAGE);
      const type = v3Name(from, to);
      return readAnswer(now, from, to, rows, (r) => ({ from: { id: String(r.id) }, to: r.to.map((a) => ({ id: String(a.toObjectId), type })), ...paging(r) }));
    },
  }),
  route({
    method: "POST",
    path: `${v3}/batch/create`,
    summary: "Associate up to 100 pairs with the default type (v3)",
    tag,
    auth: account,
    params: s.pairParams,
    body: s.v3PairsBody,
    responses: { 201: { description: "Associated", schema: s.v3CreateResponse } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const { fromObjectType: from, toObjectType: to } = params;
      writing(principal, from, to);
      const portalId = portalOf(principal);
      const pairs = v3Pairs(from, to, body.inputs);
      await requireRecords(db, portalId, from, to, pairs);
      await writeWithEvents(ctx, portalId, (outbox) => writeAssociations(db, portalId, from, to, pairs, outbox));
      const results = pairs.map((p) => ({ from: { id: String(p.fromId) }, to: { id: String(p.toId) }, type: v3Name(from, to) }));
      return json({ status: "COMPLETE", results, startedAt: iso(now), completedAt: completedAt(now) }, 201);
    },
  }),
  route({
    method: "POST",
    path: `${v3}/batch/archive`,
    summary: "Remove up to 100 associations (v3)",
    tag,
    auth: account,
    params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
    body: s.v3PairsBody,
    responses: { 204: { description: "Removed (pairs that were not associated are ignored)" } },
    handler: async (ctx) => {
      const { db, principal, params, body } = ctx;
      const { fromObjectType: from, toObjectType: to } = params;
      requireScopes(principal, [crm.scopeFor(from, "write")]);
      const portalId = portalOf(principal);
      const pairs = v3Pairs(from, to, body.inputs);
      await writeWithEvents(ctx, portalId, (outbox) => removeAssociations(db, portalId, from, to, pairs, outbox));
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: `${v3}/types`,
    summary: "The association types of a pair (v3): the default by its v3 name, the others by label",
    tag,
    auth: account,
    params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
    responses: { 200: { description: "The pair's types", schema: s.v3TypesResponse } },
    handler: async ({ db, principal, params }) => {
      const { fromObjectType: from, toObjectType: to } = params;
      reading(principal, from, to);
      const types = await listTypes(db, portalOf(principal), from, to);
      return json({ results: types.map((t) => ({ id: String(t.typeId), name: t.label === null ? v3Name(from, to) : t.label })) });
    },
  }),
];

export const crmAssociationBatchRoutes = [...v4Routes, ...v3Routes];
