/** @module Every route of the Worker, in one list: dispatch, the 405 answer and OpenAPI all read it. */
import type { RouteDef } from "../lib/route";
import { adminRoutes } from "./admin";
import { adminUsageRoutes } from "./admin-usage";
import { contentRoutes } from "./content";
import { blogPostV3Routes } from "./blog-v3";
import { cardRoutes } from "./cards";
import { cardV3Routes } from "./cards-v3";
import { contactsV1Routes } from "./contacts-v1";
import { docsRoutes } from "./docs";
import { crmObjectRoutes } from "./crm-objects";
import { ecommRoutes } from "./ecomm";
import { healthRoutes } from "./health";
import { oauthRoutes } from "./oauth";
import { openapiRoutes } from "./openapi";
import { sessionRoutes } from "./session";
import { smtpTokenV3Routes } from "./smtp-tokens-v3";
import { timelineRoutes } from "./timeline";
import { timelineV3Routes } from "./timeline-v3";
import { webRoutes } from "./web";

export const allRoutes: RouteDef[] = [
  ...adminRoutes,
  ...adminUsageRoutes,
  ...oauthRoutes,
  ...contactsV1Routes,
  ...crmObjectRoutes,
  ...ecommRoutes,
  ...openapiRoutes,
  ...docsRoutes,
  ...sessionRoutes,
  ...timelineRoutes,
  ...timelineV3Routes,
  ...contentRoutes,
  ...blogPostV3Routes,
  ...smtpTokenV3Routes,
  ...cardRoutes,
  ...cardV3Routes,
  ...webRoutes,
  ...healthRoutes,
];
