/**
 * @module The test kit's operator routes (docs/reference/testkit.md): controls over a test account
 * (`accountType` DEVELOPER_TEST or SANDBOX). On a STANDARD account each answers 409.
 */
import type { AuthRule } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import { clearFaultRules, listFaultRules, putFaultRules } from "../../services/testkit/faults";
import { portalParams } from "../../schemas/accounts/operator";
import { faultsBody, faultsView } from "../../schemas/testkit";

const admin: AuthRule = { kinds: ["admin"] };
const tag = "Operator: test kit";
const notTest = { description: "The account is STANDARD (the message names its accountType), or is being deleted" };

export const adminTestkitRoutes = [
  route({
    method: "PUT",
    path: "/admin/v1/accounts/:portalId/faults",
    summary: "Set the account's fault rules (replacing any): its matching API calls get the rule's 429, 5xx or delay",
    tag,
    auth: admin,
    params: portalParams,
    body: faultsBody,
    responses: { 200: { description: "The rules as now set", schema: faultsView }, 409: notTest },
    handler: async ({ control, params, body }) => json(await putFaultRules(control, params.portalId, body.rules)),
  }),
  route({
    method: "GET",
    path: "/admin/v1/accounts/:portalId/faults",
    summary: "The account's fault rules, with the calls each matched, the faults it gave and the faults it has left",
    tag,
    auth: admin,
    params: portalParams,
    responses: { 200: { description: "The rules, in the order they are tried", schema: faultsView }, 409: notTest },
    handler: async ({ control, params }) => json(await listFaultRules(control, params.portalId)),
  }),
  route({
    method: "DELETE",
    path: "/admin/v1/accounts/:portalId/faults",
    summary: "Remove the account's fault rules: its calls are answered as usual again",
    tag,
    auth: admin,
    params: portalParams,
    responses: { 204: { description: "Removed" }, 409: notTest },
    handler: async ({ control, params }) => {
      await clearFaultRules(control, params.portalId);
      return noContent();
    },
  }),
];
