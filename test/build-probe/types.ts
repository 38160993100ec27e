declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the build probe started by test/global-setup.ts (GET /bundle). */
    buildProbeUrl: string;
  }
}

/** What GET /bundle answers: the files `wrangler deploy --dry-run` wrote, with their text. */
export interface BuiltBundle {
  command: string;
  files: { name: string; text: string }[];
}
