/** @module Every route of the Worker, in one list: dispatch, the 405 answer and OpenAPI all read it. */
import type { RouteDef } from "../lib/route";
import { adminRoutes } from "./admin";
import { adminLifecycleRoutes } from "./admin-lifecycle";
import { adminUsageRoutes } from "./admin-usage";
import { contentRoutes } from "./content";
import { cardRoutes } from "./cards";
import { contactsV1Routes } from "./contacts-v1";
import { docsRoutes } from "./docs";
import { crmObjectRoutes } from "./crm-objects";
import { ecommRoutes } from "./ecomm";
import { healthRoutes } from "./health";
import { oauthRoutes } from "./oauth";
import { oauthCallbackRoutes } from "./oauth-callback";
import { openapiRoutes } from "./openapi";
import { sessionRoutes } from "./session";
import { timelineRoutes } from "./timeline";
import { webRoutes } from "./web";

export const allRoutes: RouteDef[] = [
  ...adminRoutes,
  ...adminLifecycleRoutes,
  ...adminUsageRoutes,
  ...oauthRoutes,
  ...oauthCallbackRoutes,
  ...contactsV1Routes,
  ...crmObjectRoutes,
  ...ecommRoutes,
  ...openapiRoutes,
  ...docsRoutes,
  ...sessionRoutes,
  ...timelineRoutes,
  ...contentRoutes,
  ...cardRoutes,
  ...webRoutes,
  ...healthRoutes,
];
