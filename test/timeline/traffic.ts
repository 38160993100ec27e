/// <reference types="vite/client" />
/**
 * Recorded traffic of the real service, read from shared/ beside the repository (never copied into it).
 * Two globs because shared/ sits beside the repo root in a clone and CI (`../shared`) but one level further
 * up from a worktree under wt/; exactly one of them matches.
 */
export interface TrafficRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  requestBody: unknown;
  responseBody: unknown;
  status: number | null;
}

export interface WireRequest {
  method: string;
  url: string;
  body: unknown;
  label: string;
}

const fromClone = import.meta.glob<unknown>("../../../shared/reference/traffic/{hubspot-docs-examples,synthetic-test-mocks,clients_wire}/*.json", {
  eager: true,
  import: "default",
});
const fromWorktree = import.meta.glob<unknown>("../../../../shared/reference/traffic/{hubspot-docs-examples,synthetic-test-mocks,clients_wire}/*.json", {
  eager: true,
  import: "default",
});

const byName = new Map<string, unknown>();
for (const [path, data] of Object.entries({ ...fromWorktree, ...fromClone })) byName.set(path.split("/traffic/")[1] ?? path, data);

/** A record by its path under traffic/, e.g. `synthetic-test-mocks/timeline_v1__07.json`. */
export function traffic<T = TrafficRecord>(name: string): T {
  const data = byName.get(name);
  if (data === undefined) throw new Error(`traffic record ${name} not found beside the repository (shared/reference/traffic)`);
  return data as T;
}

/** Timeline requests node-hubspot put on the wire (clients_wire/probe_out.json). */
export const wireTimelineRequests = () =>
  traffic<Partial<WireRequest>[]>("clients_wire/probe_out.json").filter(
    (r): r is WireRequest => typeof r.url === "string" && r.url.startsWith("/integrations/v1/"),
  );
