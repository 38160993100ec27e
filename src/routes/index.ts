/**
 * @module Every route of the Worker, in one list: dispatch, the 405 answer and OpenAPI all read it. The
 * document route `/openapi.json` is built over this list (routes/openapi.ts imports it, not the reverse)
 * and joins it in `servedRoutes` (src/router.ts).
 */
import type { RouteDef } from "../lib/route";
import { adminRoutes } from "./admin";
import { adminLifecycleRoutes } from "./admin-lifecycle";
import { adminUsageRoutes } from "./admin-usage";
import { contentRoutes } from "./content";
import { blogPostV3Routes } from "./blog-v3";
import { cardRoutes } from "./cards";
import { cardV3Routes } from "./cards-v3";
import { contactsV1Routes } from "./contacts-v1";
import { docsRoutes } from "./docs";
import { crmAssociationV4Routes } from "./crm-associations-v4";
import { crmBatchRoutes } from "./crm-batch";
import { crmObjectRoutes } from "./crm-objects";
import { crmPropertyRoutes } from "./crm-properties";
import { crmSearchRoutes } from "./crm-search";
import { ecommRoutes } from "./ecomm";
import { healthRoutes } from "./health";
import { oauthRoutes } from "./oauth";
import { oauthCallbackRoutes } from "./oauth-callback";
import { sessionRoutes } from "./session";
import { smtpTokenV3Routes } from "./smtp-tokens-v3";
import { timelineRoutes } from "./timeline";
import { timelineV3Routes } from "./timeline-v3";
import { webRoutes } from "./web";
import { webhookRoutes } from "./webhooks";
import { webhookDeliveryRoutes } from "./webhooks-deliveries";

export const allRoutes: RouteDef[] = [
  ...adminRoutes,
  ...adminLifecycleRoutes,
  ...adminUsageRoutes,
  ...oauthRoutes,
  ...oauthCallbackRoutes,
  ...contactsV1Routes,
  // The literal paths (search, batch/*) before the `/:objectId` ones of the same prefix.
  ...crmSearchRoutes,
  ...crmBatchRoutes,
  ...crmObjectRoutes,
  ...crmPropertyRoutes,
  ...crmAssociationV4Routes,
  ...ecommRoutes,
  ...docsRoutes,
  ...sessionRoutes,
  ...timelineRoutes,
  ...timelineV3Routes,
  ...contentRoutes,
  ...blogPostV3Routes,
  ...smtpTokenV3Routes,
  ...cardRoutes,
  ...webhookRoutes,
  ...webhookDeliveryRoutes,
  ...cardV3Routes,
  ...webRoutes,
  ...healthRoutes,
];
