/** @module The drizzle schema: one file per domain under tables/, all re-exported here for drizzle-kit. */
export * from "./tables/tenancy";
export * from "./tables/crm";
export * from "./tables/timeline";
export * from "./tables/content";
export * from "./tables/cards";
export * from "./tables/ecomm";
export * from "./tables/shards";
export * from "./tables/webhooks";
export * from "./tables/pipelines";
export * from "./tables/testkit";
export * from "./tables/schemas";
export * from "./tables/lists";
export * from "./tables/extensions";
