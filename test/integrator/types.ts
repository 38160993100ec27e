declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the local integrator started by test/global-setup.ts. */
    integratorUrl: string;
  }
}

/** What the local integrator answers on a path (test/integrator/server.ts). */
export interface Script {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Answer with this many bytes of "x" (oversize tests). */
  bytes?: number;
  /** Apply this script to the next `times` requests only, then answer 200 again (a receiver that recovers). */
  times?: number;
}

export interface Recorded {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

