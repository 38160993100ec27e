declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the Worker started by test/node/global-setup.ts (no trailing slash). */
    workerUrl: string;
    adminToken: string;
    /**
     * A local state directory freshly migrated by `npm run migrate -- --local` (test/node/global-setup.ts),
     * never started on: copy it to start a Worker on migrated databases.
     */
    migratedState: string;
  }
}
export {};
