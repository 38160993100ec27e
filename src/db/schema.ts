/** @module The drizzle schema: one file per domain under tables/, all re-exported here for drizzle-kit. */
export * from "./tables/tenancy";
export * from "./tables/crm";
export * from "./tables/ecomm";
