/**
 * @module CRM v3 merge (`POST /crm/v3/objects/{contacts,companies,deals,tickets}/merge`) and the contacts'
 * GDPR delete (`POST /crm/v3/objects/contacts/gdpr-delete`), as @hubspot/api-client's BasicApi `merge` and
 * `purge` call them. The merge is the one the v1 contact merge uses too (src/services/crm/merge.ts).
 * docs/reference/crm.md "Merge and GDPR delete".
 */
import { portalOf, requireScopes, type AuthRule } from "../../http/auth";
import { route } from "../../http/route";
import { badRequest, notFound } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import { idPropertyOf } from "../../services/crm/batch";
import { mergeRecords, type MergeRefusal } from "../../services/crm/merge";
import { purgeContact } from "../../services/crm/purge";
import * as crm from "../../services/crm/records";
import { writeWithEvents } from "../../services/webhooks/write";
import * as s from "../../schemas/crm/merge";
import { objectResponse } from "../../schemas/crm/objects";
import { present } from "./objects";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM objects";

/**
 * The 400 of a refused merge, naming the field. The real service's words for these are not recorded; these
 * say which id is wrong and why. Another account's id is refused like an unknown one, never evidence it exists.
 */
function refusal(type: string, why: MergeRefusal, primary: number, secondary: number) {
  const [field, message] =
    why === "same"
      ? (["objectIdToMerge", `objectIdToMerge: a record cannot be merged with itself (primaryObjectId and objectIdToMerge are both ${primary})`] as const)
      : why === "primary"
        ? (["primaryObjectId", `primaryObjectId: ${primary} is not a live ${type} record of this account (unknown, archived or merged away)`] as const)
        : (["objectIdToMerge", `objectIdToMerge: ${secondary} is not a live ${type} record of this account (unknown, archived or merged away)`] as const);
  return badRequest(message, { errors: [{ message, in: "body", context: { propertyName: [field] } }] });
}

export const crmMergeRoutes = [
  route({
    method: "POST",
    path: "/crm/v3/objects/:objectType/merge",
    summary: "Merge a record into another of its type: the primary keeps its id and takes the other's properties, associations and activities",
    tag,
    auth: account,
    params: s.mergeParams,
    body: s.mergeBody,
    responses: { 200: { description: "The merged record (the primary, with its id)", schema: objectResponse } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const portalId = portalOf(principal);
      const result = await writeWithEvents(ctx, portalId, (outbox) => mergeRecords(db, portalId, params.objectType, body.primaryObjectId, body.objectIdToMerge, now, outbox, ctx.companion));
      if (!result.ok) throw refusal(params.objectType, result.refused, body.primaryObjectId, body.objectIdToMerge);
      return json(present(result.row));
    },
  }),
  route({
    method: "POST",
    path: "/crm/v3/objects/contacts/gdpr-delete",
    summary: "Delete a contact for good (GDPR): by id, or by email with idProperty email",
    tag,
    auth: account,
    body: s.gdprDeleteBody,
    responses: {
      204: { description: "Deleted for good" },
      404: { description: "No contact has that id or email in this account (OBJECT_NOT_FOUND, X-Service-NotFound: true)" },
    },
    handler: async (ctx) => {
      const { db, control, principal, body } = ctx;
      requireScopes(principal, [crm.scopeFor("contacts", "write")]);
      const portalId = portalOf(principal);
      let key: crm.RecordKey;
      if (idPropertyOf("contacts", body.idProperty, "idProperty") === "email") key = { email: body.objectId };
      else if (/^\d{1,15}$/.test(body.objectId)) key = { id: Number(body.objectId) };
      else throw badRequest("objectId: must be a numeric id (or set idProperty to email)", { errors: [{ message: "objectId: must be a numeric id", in: "body", context: { propertyName: ["objectId"] } }] });
      const done = await writeWithEvents(ctx, portalId, (outbox) => purgeContact(db, control, portalId, key, outbox, ctx.companion));
      if (!done) throw notFound("id" in key ? `contacts ${key.id} not found` : "No contact has that email");
      return noContent();
    },
  }),
];
