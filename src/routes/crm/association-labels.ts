/**
 * @module Association labels `/crm/v4/associations/{from}/{to}/labels` and limits
 * `/crm/v4/associations/definitions/configurations/...` (docs/reference/crm.md "Association labels",
 * "Association limits"), each also under the client's other path form `/crm/associations/v4/...`.
 */
import { OBJECT_TYPES, type ObjectType } from "../../db/tables/crm";
import { missingScopes } from "../../lib/scopes";
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { route } from "../../http/route";
import { badRequest } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import type { Principal } from "../../lib/principal";
import { createLabel, deleteLabel, listTypes, updateLabel } from "../../services/crm/association-definitions";
import { listLimits, removeLimits, setLimits } from "../../services/crm/association-limits";
import { resolveTypes } from "../../services/crm/associations";
import * as crm from "../../services/crm/records";
import * as s from "../../schemas/crm/association-labels";
import { completedAt } from "../../services/testkit/clock";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM association labels";

const allow = (principal: Principal, from: ObjectType, to: ObjectType, access: "read" | "write") =>
  requireScopes(principal, [crm.scopeFor(from, access), crm.scopeFor(to, access)]);

/** The routes of both path forms the client uses (`definitionsApi`/`labelsApi`, `definitionConfigurationsApi`/`limitsApi`). */
const PREFIXES = ["/crm/v4/associations", "/crm/associations/v4"];

const labelRoutes = (prefix: string) => [
  route({
    method: "GET",
    path: `${prefix}/:fromObjectType/:toObjectType/labels`,
    summary: "The association types of a pair: built-in (the unlabelled default, Primary) and the account's labels",
    tag,
    auth: account,
    params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
    responses: { 200: { description: "The pair's types", schema: s.labelsResponse } },
    handler: async ({ db, principal, params }) => {
      allow(principal, params.fromObjectType, params.toObjectType, "read");
      const types = await listTypes(db, portalOf(principal), params.fromObjectType, params.toObjectType);
      return json({ results: types.map(({ category, typeId, label }) => ({ category, typeId, label })) });
    },
  }),
  route({
    method: "POST",
    path: `${prefix}/:fromObjectType/:toObjectType/labels`,
    summary: "Create a USER_DEFINED label (paired with inverseLabel: one type id per direction)",
    tag,
    auth: account,
    params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
    body: s.createLabelBody,
    responses: { 200: { description: "The label's type ids", schema: s.labelsResponse } },
    handler: async ({ db, principal, params, body }) => {
      allow(principal, params.fromObjectType, params.toObjectType, "write");
      return json({ results: await createLabel(db, portalOf(principal), params.fromObjectType, params.toObjectType, body) });
    },
  }),
  route({
    method: "PUT",
    path: `${prefix}/:fromObjectType/:toObjectType/labels`,
    summary: "Rename a USER_DEFINED label (and its inverse)",
    tag,
    auth: account,
    params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
    body: s.updateLabelBody,
    responses: { 204: { description: "Renamed" } },
    handler: async ({ db, principal, params, body }) => {
      allow(principal, params.fromObjectType, params.toObjectType, "write");
      await updateLabel(db, portalOf(principal), params.fromObjectType, params.toObjectType, body);
      return noContent();
    },
  }),
  route({
    method: "DELETE",
    path: `${prefix}/:fromObjectType/:toObjectType/labels/:associationTypeId`,
    summary: "Delete a USER_DEFINED label: both directions, and from every pair holding it",
    tag,
    auth: account,
    params: s.labelParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ db, principal, params }) => {
      allow(principal, params.fromObjectType, params.toObjectType, "write");
      await deleteLabel(db, portalOf(principal), params.fromObjectType, params.toObjectType, params.associationTypeId);
      return noContent();
    },
  }),
];

/** The pair's types with the account's limits, as the configuration reads answer them. */
async function configurations(db: Parameters<typeof listTypes>[0], portalId: number, from: ObjectType, to: ObjectType) {
  const [types, limits] = await Promise.all([listTypes(db, portalId, from, to), listLimits(db, portalId, { from, to })]);
  const max = new Map(limits.map((l) => [l.typeId, l.maxToObjectIds]));
  return types.map(({ category, typeId, label }) => ({ category, typeId, label, ...(max.has(typeId) ? { userEnforcedMaxToObjectIds: max.get(typeId) } : {}) }));
}

/** The inputs' types, checked against the pair's (a 400 naming `inputs.i.typeId` otherwise). */
const checked = (db: Parameters<typeof listTypes>[0], portalId: number, from: ObjectType, to: ObjectType, inputs: { category: "HUBSPOT_DEFINED" | "USER_DEFINED"; typeId: number }[]) =>
  resolveTypes(db, portalId, from, to, inputs.map((input, i) => ({ category: input.category, typeId: input.typeId, at: `inputs.${i}.typeId` })));

const stamp = (startedAt: number, results: unknown[]) => ({ status: "COMPLETE", results, startedAt: new Date(startedAt).toISOString(), completedAt: completedAt(startedAt) });

const limitRoutes = (prefix: string) => {
  const base = `${prefix}/definitions/configurations`;
  return [
    route({
      method: "GET",
      path: `${base}/all`,
      summary: "The account's association limits, every pair",
      tag,
      auth: account,
      responses: { 200: { description: "The limits", schema: s.configurationsResponse } },
      handler: async ({ db, principal }) => {
        // The account-wide list needs a CRM read scope (contacts'), and answers only the pairs whose two types
        // the token may read, as every pair's own read requires.
        requireScopes(principal, [crm.scopeFor("contacts", "read")]);
        const readable = (type: string) => (OBJECT_TYPES as readonly string[]).includes(type) && (!("scopes" in principal) || missingScopes(principal.scopes, [crm.scopeFor(type as ObjectType, "read")]).length === 0);
        const limits = (await listLimits(db, portalOf(principal))).filter((l) => readable(l.fromType) && readable(l.toType));
        return json({
          results: limits.map((l) => ({ category: l.typeId > 1_000_000 ? "USER_DEFINED" : "HUBSPOT_DEFINED", typeId: l.typeId, userEnforcedMaxToObjectIds: l.maxToObjectIds })),
        });
      },
    }),
    route({
      method: "GET",
      path: `${base}/:fromObjectType/:toObjectType`,
      summary: "The association types of a pair with the account's limits",
      tag,
      auth: account,
      params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
      responses: { 200: { description: "The pair's types and limits", schema: s.configurationsResponse } },
      handler: async ({ db, principal, params }) => {
        allow(principal, params.fromObjectType, params.toObjectType, "read");
        return json({ results: await configurations(db, portalOf(principal), params.fromObjectType, params.toObjectType) });
      },
    }),
    ...(["create", "update"] as const).map((verb) =>
      route({
        method: "POST",
        path: `${base}/:fromObjectType/:toObjectType/batch/${verb}`,
        summary: verb === "create" ? "Set limits on a pair's association types" : "Change limits on a pair's association types",
        tag,
        auth: account,
        params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
        body: s.limitsBody,
        responses:
          verb === "create"
            ? { 201: { description: "The limits set", schema: s.limitsResponse } }
            : { 200: { description: "The limits changed", schema: s.limitsUpdateResponse } },
        handler: async ({ db, principal, params, body, now }) => {
          const { fromObjectType: from, toObjectType: to } = params;
          allow(principal, from, to, "write");
          const portalId = portalOf(principal);
          const types = await checked(db, portalId, from, to, body.inputs);
          if (verb === "update") {
            const set = new Set((await listLimits(db, portalId, { from, to })).map((l) => l.typeId));
            const i = body.inputs.findIndex((input) => !set.has(input.typeId));
            if (i >= 0) throw badRequest(`No limit is set on association type ${body.inputs[i]?.typeId} from ${from} to ${to}`, { errors: [{ message: "no limit to update", in: "body", context: { propertyName: [`inputs.${i}.typeId`] } }] });
          }
          await setLimits(db, portalId, from, to, body.inputs);
          const results = body.inputs.map((input, i) => ({
            category: input.category,
            typeId: input.typeId,
            ...(verb === "create" ? { label: types[i]?.label ?? null } : {}),
            userEnforcedMaxToObjectIds: input.maxToObjectIds,
          }));
          return json(stamp(now, results), verb === "create" ? 201 : 200);
        },
      }),
    ),
    route({
      method: "POST",
      path: `${base}/:fromObjectType/:toObjectType/batch/purge`,
      summary: "Remove limits from a pair's association types",
      tag,
      auth: account,
      params: s.pairParams,
    // Only object types in the path, which are 400s when unknown.
    neverAnswers: [404],
      body: s.purgeBody,
      responses: { 204: { description: "Removed" } },
      handler: async ({ db, principal, params, body }) => {
        allow(principal, params.fromObjectType, params.toObjectType, "write");
        const portalId = portalOf(principal);
        await checked(db, portalId, params.fromObjectType, params.toObjectType, body.inputs);
        await removeLimits(db, portalId, params.fromObjectType, params.toObjectType, body.inputs.map((i) => i.typeId));
        return noContent();
      },
    }),
  ];
};

export const crmAssociationLabelRoutes = PREFIXES.flatMap((prefix) => [...labelRoutes(prefix), ...limitRoutes(prefix)]);
