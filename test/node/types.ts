declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the Worker started by test/node/global-setup.ts (no trailing slash). */
    workerUrl: string;
    adminToken: string;
  }
}
export {};
