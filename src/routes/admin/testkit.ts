/**
 * @module The test kit's operator routes (docs/reference/testkit.md): controls over a test account
 * (`accountType` DEVELOPER_TEST or SANDBOX). On a STANDARD account each answers 409.
 */
import { z } from "zod";
import type { AuthRule } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import { clearFaultRules, listFaultRules, putFaultRules } from "../../services/testkit/faults";
import { loadFixture } from "../../services/testkit/fixtures";
import { importAccount } from "../../services/testkit/import";
import { createSnapshot, deleteSnapshot, listSnapshots, restore } from "../../services/testkit/snapshots";
import { getQuirks, patchQuirks } from "../../services/testkit/quirks";
import { advanceClock, readClock, resetClock } from "../../services/testkit/clock";
import { getHold, queueTestEvent, setHold } from "../../services/testkit/webhooks";
import { drainSoon } from "../../services/webhooks/drain";
import { canonicalId, portalParams } from "../../schemas/accounts/operator";
import {
  clockBody,
  clockView,
  FIXTURE_MAX_BODY,
  fixtureEnvelope,
  fixtureView,
  importView,
  faultsBody,
  faultsView,
  holdBody,
  holdView,
  quirksBody,
  quirksView,
  restoredView,
  snapshotBody,
  snapshotList,
  snapshotParams,
  snapshotView,
  testEventBody,
  testEventView,
} from "../../schemas/testkit";

const admin: AuthRule = { kinds: ["admin"] };
const appParams = z.object({ appId: canonicalId("appId") });
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

export const adminSnapshotRoutes = [
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/snapshots",
    summary: "Take a named snapshot of the account's data",
    tag,
    auth: admin,
    params: portalParams,
    body: snapshotBody,
    responses: { 201: { description: "The snapshot: its name, time and rows by table", schema: snapshotView }, 409: { description: "A STANDARD account; a snapshot of that name exists; too many snapshots; the account is moving or being deleted" } },
    handler: async ({ env, control, params, body, now }) => json(await createSnapshot(env, control, params.portalId, body.name, now), 201),
  }),
  route({
    method: "GET",
    path: "/admin/v1/accounts/:portalId/snapshots",
    summary: "The account's snapshots, oldest first",
    tag,
    auth: admin,
    params: portalParams,
    responses: { 200: { description: "The snapshots", schema: snapshotList }, 409: notTest },
    handler: async ({ env, control, openShard, params }) => json(await listSnapshots(env, control, openShard, params.portalId)),
  }),
  route({
    method: "DELETE",
    path: "/admin/v1/accounts/:portalId/snapshots/:name",
    summary: "Delete a snapshot",
    tag,
    auth: admin,
    params: snapshotParams,
    responses: { 204: { description: "Deleted" }, 404: { description: "No snapshot of that name" }, 409: notTest },
    handler: async ({ env, control, params }) => {
      await deleteSnapshot(env, control, params.portalId, params.name);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/snapshots/:name/restore",
    summary: "Put the account's data back as it was at the snapshot, ids included; pending sync messages and webhook events of later changes are dropped",
    tag,
    auth: admin,
    params: snapshotParams,
    responses: { 200: { description: "Restored", schema: restoredView }, 404: { description: "No snapshot of that name" }, 409: notTest },
    handler: async ({ env, control, params, now }) => json(await restore(env, control, params.portalId, params.name, now)),
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/reset",
    summary: "Empty the account's data, as just after it was made; its users, apps, installs, private apps, credentials and snapshots stay",
    tag,
    auth: admin,
    params: portalParams,
    responses: { 200: { description: "Reset", schema: restoredView }, 409: notTest },
    handler: async ({ env, control, params, now }) => json(await restore(env, control, params.portalId, null, now)),
  }),
];

export const adminQuirkRoutes = [
  route({
    method: "GET",
    path: "/admin/v1/accounts/:portalId/quirks",
    summary: "The account's quirk switches: behaviours of the real service turned on for tests (search lag)",
    tag,
    auth: admin,
    params: portalParams,
    responses: { 200: { description: "The switches, each with its value (0: off)", schema: quirksView }, 404: { description: "No such account" }, 409: notTest },
    handler: async ({ control, params }) => json(await getQuirks(control, params.portalId)),
  }),
  route({
    method: "PATCH",
    path: "/admin/v1/accounts/:portalId/quirks",
    summary: "Turn quirk switches on or off: searchLagMs keeps a written record out of search for that long after its last write",
    tag,
    auth: admin,
    params: portalParams,
    body: quirksBody,
    responses: { 200: { description: "The switches as now set", schema: quirksView }, 404: { description: "No such account" }, 409: notTest },
    handler: async ({ control, params, body, now }) => json(await patchQuirks(control, params.portalId, body, now)),
  }),
];

export const adminClockRoutes = [
  route({
    method: "GET",
    path: "/admin/v1/accounts/:portalId/clock",
    summary: "The account's clock: its current time and how far it runs ahead of real time (0: real time)",
    tag,
    auth: admin,
    params: portalParams,
    responses: { 200: { description: "The clock", schema: clockView }, 404: { description: "No such account" }, 409: notTest },
    handler: async ({ control, params, now }) => json(await readClock(control, params.portalId, now)),
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/clock",
    summary:
      "Move the account's clock forward (advanceSeconds, or to now; never back), then run the work come due by its new time: checkouts abandoned, scheduled blog posts published, webhook retries sent. Its records are stamped, its access tokens expire and its search lags by this clock",
    tag,
    auth: admin,
    params: portalParams,
    body: clockBody,
    responses: {
      200: { description: "The clock as now set, once the due work is done", schema: clockView },
      400: { description: "Both fields, neither, a value that is not a number or date-time, or a now earlier than the account's current time (the message names the field)" },
      404: { description: "No such account" },
      409: notTest,
    },
    handler: async ({ env, control, openShard, params, body, now }) => json(await advanceClock(env, control, openShard, params.portalId, body, now)),
  }),
  route({
    method: "DELETE",
    path: "/admin/v1/accounts/:portalId/clock",
    summary: "Put the account back on real time; what was scheduled by its clock stays scheduled for that time",
    tag,
    auth: admin,
    params: portalParams,
    responses: { 204: { description: "Back to real time" }, 404: { description: "No such account" }, 409: notTest },
    handler: async ({ control, params, now }) => {
      await resetClock(control, params.portalId, now);
      return noContent();
    },
  }),
];

export const adminWebhookTestRoutes = [
  route({
    method: "POST",
    path: "/admin/v1/apps/:appId/webhooks/test-events",
    summary: "Send the app a test event of a test account where it is installed: signed, retried and logged as every delivery",
    tag,
    auth: admin,
    params: appParams,
    body: testEventBody,
    responses: {
      202: { description: "The event, queued for delivery to the app's target URL (without attemptNumber, added per attempt)", schema: testEventView },
      404: { description: "No such app or account" },
      409: { description: "The account is STANDARD (the message names its accountType) or being deleted; the app is not installed there; the app has no webhook settings" },
    },
    handler: async ({ env, exec, control, openShard, params, body, now }) => {
      const { event, db } = await queueTestEvent(control, openShard, params.appId, body, now);
      drainSoon(exec, db, env);
      return json(event, 202);
    },
  }),
  route({
    method: "GET",
    path: "/admin/v1/apps/:appId/webhooks",
    summary: "Whether the app's deliveries are held, and what waits",
    tag,
    auth: admin,
    params: appParams,
    responses: { 200: { description: "The hold and the deliveries it keeps waiting", schema: holdView }, 404: { description: "No such app" } },
    handler: async ({ env, control, params }) => json(await getHold(env, control, params.appId)),
  }),
  route({
    method: "PATCH",
    path: "/admin/v1/apps/:appId/webhooks",
    summary: "Hold the app's deliveries of test accounts' events (held: true), or release them in order (held: false)",
    tag,
    auth: admin,
    params: appParams,
    body: holdBody,
    responses: {
      200: { description: "The hold as now set", schema: holdView },
      404: { description: "No such app" },
      409: { description: "held: true for an app installed in a STANDARD account (the message names it and its accountType)" },
    },
    handler: async ({ env, control, params, body, now }) => json(await setHold(env, control, env.WEBHOOK_QUEUE, params.appId, body.held, now)),
  }),
];

export const adminFixtureRoutes = [
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/fixtures",
    summary:
      "Load a fixture: records of any object type and associations between them, named by refs, timeline events on them, blog posts, and webhook subscriptions of the account's app; the document is checked whole (a 400 names every problem by its JSON path), then written in one go, without webhook events",
    tag,
    auth: admin,
    params: portalParams,
    body: fixtureEnvelope,
    maxBodyBytes: FIXTURE_MAX_BODY,
    responses: {
      201: { description: "Loaded: each ref's record or blog post id, and what was made: records by type, associations, timeline events, blog posts, subscriptions", schema: fixtureView },
      409: { description: "The account is STANDARD (the message names its accountType), is being deleted, or is moving" },
    },
    handler: async ({ env, control, openShard, params, body, now }) => json(await loadFixture(env, control, openShard, params.portalId, body, now), 201),
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/import",
    summary:
      "Import the NDJSON of GET /admin/v1/accounts/{portalId}/export into an empty account of any accountType: the account's data with its ids, its people, apps and credentials with new ids and without secrets (a malformed line is a 400 naming its number, nothing written)",
    tag,
    auth: admin,
    params: portalParams,
    responses: {
      200: { description: "Imported: rows by table, the new ids of the people and apps, and the lines read but not imported (pending webhook events, the move record, credentials of the target's own rows) by table", schema: importView },
      409: { description: "The account holds data, is being deleted or moving, or its database holds rows with the export's ids" },
      413: { description: "The body is over 100 MB, or too many rows for one request" },
    },
    handler: async ({ env, control, params, request, now }) => json(await importAccount(env, control, params.portalId, request.body, now)),
  }),
];
