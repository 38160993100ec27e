/**
 * @module Every route of the Worker, in one list: dispatch, the 405 answer and OpenAPI all read it. The
 * document route `/openapi.json` is built over this list (routes/docs/openapi.ts imports it, not the reverse)
 * and joins it in `servedRoutes` (src/router.ts).
 */
import type { RouteDef } from "../http/route";
import { adminRoutes } from "./admin/accounts";
import { adminLifecycleRoutes } from "./admin/lifecycle";
import { adminUsageRoutes } from "./admin/usage";
import { blogRoutes } from "./blog/blogs";
import { blogPageRoutes } from "./blog/pages";
import { blogPostRoutes } from "./blog/posts";
import { blogPostV3Routes } from "./blog/v3";
import { adminAppRoutes } from "./admin/apps";
import { cardTypeRoutes } from "./cards/types";
import { cardViewRoutes } from "./cards/view";
import { cardV3Routes } from "./cards/v3";
import { contactsV1Routes } from "./contacts-v1/lists";
import { docsRoutes } from "./docs/pages";
import { crmAssociationV4Routes } from "./crm/associations-v4";
import { crmAssociationLabelRoutes } from "./crm/association-labels";
import { crmAssociationBatchRoutes } from "./crm/associations-batch";
import { crmBatchRoutes } from "./crm/batch";
import { crmObjectRoutes } from "./crm/objects";
import { crmMergeRoutes } from "./crm/merge";
import { crmPropertyRoutes } from "./crm/properties";
import { crmPropertyGroupRoutes } from "./crm/property-groups";
import { crmSearchRoutes } from "./crm/search";
import { schemaRoutes } from "./schemas";
import { ecommRoutes } from "./ecomm";
import { engagementRoutes } from "./engagements";
import { healthRoutes } from "./health";
import { oauthRoutes } from "./oauth/grants";
import { oauthCallbackRoutes } from "./oauth/callback";
import { sessionRoutes } from "./web/session";
import { smtpTokenRoutes } from "./smtp/tokens";
import { smtpTokenV3Routes } from "./smtp/v3";
import { smtpMailRoutes } from "./smtp/mail";
import { timelineRoutes } from "./timeline/events";
import { timelineV3Routes } from "./timeline/v3";
import { webRoutes } from "./web/pages";
import { webhookRoutes } from "./webhooks/settings";
import { webhookDeliveryRoutes } from "./webhooks/deliveries";
import { callingRoutes } from "./extensions/calling";
import { videoconferencingRoutes } from "./extensions/videoconferencing";
import { adminTeamRoutes } from "./admin/teams";
import { adminFixtureRoutes, adminClockRoutes, adminQuirkRoutes, adminSnapshotRoutes, adminTestkitRoutes, adminWebhookTestRoutes } from "./admin/testkit";
import { ownerRoutes } from "./owners";
import { userRoutes } from "./users";
import { accountInfoRoutes } from "./account-info";
import { pipelineRoutes } from "./pipelines";
import { listRoutes } from "./lists";
import { folderRoutes } from "./lists/folders";
import { listV1Routes } from "./lists/v1";

export const allRoutes: RouteDef[] = [
  ...adminRoutes,
  ...adminLifecycleRoutes,
  ...adminUsageRoutes,
  ...oauthRoutes,
  ...oauthCallbackRoutes,
  ...contactsV1Routes,
  // After the v1 contact routes: /contacts/v1/lists/all/... is the "all contacts" pseudo-list there.
  ...listV1Routes,
  // Folders first: `/crm/v3/lists/folders` would otherwise reach `/crm/v3/lists/{listId}`.
  ...folderRoutes,
  ...listRoutes,
  // The literal paths (search, batch/*) before the `/:objectId` ones of the same prefix.
  // Every CRM route takes the account's custom object types too (src/services/crm/object-types.ts).
  // Property groups before the property routes: `/groups` is not a property name.
  // The merge and the GDPR delete take only built-in types (a closed list), before the same prefix too.
  ...crmMergeRoutes,
  ...[...crmSearchRoutes, ...crmBatchRoutes, ...crmObjectRoutes, ...crmPropertyGroupRoutes, ...crmPropertyRoutes, ...crmAssociationV4Routes].map((r) => ({
    ...r,
    customTypes: true,
  })),
  ...schemaRoutes,
  ...crmAssociationLabelRoutes,
  ...crmAssociationBatchRoutes,
  ...ecommRoutes,
  ...docsRoutes,
  ...sessionRoutes,
  ...timelineRoutes,
  ...timelineV3Routes,
  ...blogRoutes,
  ...blogPostRoutes,
  ...blogPageRoutes,
  ...smtpTokenRoutes,
  ...blogPostV3Routes,
  ...smtpTokenV3Routes,
  ...smtpMailRoutes,
  ...cardTypeRoutes,
  ...adminAppRoutes,
  ...cardViewRoutes,
  ...webhookRoutes,
  ...webhookDeliveryRoutes,
  ...cardV3Routes,
  ...callingRoutes,
  ...videoconferencingRoutes,
  ...webRoutes,
  ...healthRoutes,
  ...adminTeamRoutes,
  ...adminTestkitRoutes,
  ...adminSnapshotRoutes,
  ...adminQuirkRoutes,
  ...adminClockRoutes,
  ...adminWebhookTestRoutes,
  ...adminFixtureRoutes,
  ...ownerRoutes,
  ...userRoutes,
  ...accountInfoRoutes,
  ...engagementRoutes,
  ...pipelineRoutes,
];
