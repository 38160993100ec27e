/// <reference types="vite/client" />
/**
 * @module Recorded traffic of the real service for the traffic suite (`npm run test:traffic`).
 * The recordings live in shared/reference/traffic beside the repository (CI has them; a clone does not) and
 * are read in place, never copied into the repository. Two globs because shared/ sits beside a clone's root
 * (`../shared`) but one level further up from a worktree under wt/; at most one of them matches. The main
 * suite (`npm test`) never imports this module: the facts it needs are in test/fixtures/.
 */

/** The normalized form of a recorded exchange (shared/reference/traffic/README.md). */
export interface TrafficRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  requestBody: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- recorded JSON of any shape
  responseBody: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- recorded JSON of any shape
  status: number;
}

/** A request a client put on the wire (clients_wire/probe_out.json). */
export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  label: string;
}

const fromClone = import.meta.glob<unknown>(["../../../shared/reference/traffic/**/*.json", "!**/openapi/**"], { eager: true, import: "default" });
const fromWorktree = import.meta.glob<unknown>(["../../../../shared/reference/traffic/**/*.json", "!**/openapi/**"], { eager: true, import: "default" });

const byName = new Map<string, unknown>();
for (const [path, data] of Object.entries({ ...fromWorktree, ...fromClone })) byName.set(path.slice(path.indexOf("/reference/traffic/") + "/reference/traffic/".length), data);

/** How many recordings were found (the suite fails when none are: it cannot run without them). */
export const recordingCount = () => byName.size;

/** A recording by its path under reference/traffic/, e.g. `synthetic-test-mocks/timeline_v1__07.json`. */
export function recording<T = TrafficRecord>(name: string): T {
  const data = byName.get(name);
  if (data === undefined) throw new Error(`recording ${name} not found in shared/reference/traffic beside the repository`);
  return data as T;
}

/** Every recording whose path under reference/traffic/ starts with `prefix`, as [path, recording], by path. */
export function recordingsUnder<T = TrafficRecord>(prefix: string): [string, T][] {
  return [...byName.entries()].filter(([name]) => name.startsWith(prefix)).sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true })).map(([name, data]) => [name, data as T]);
}

/** Requests the npm clients put on the wire. */
export const wireRequests = () => recording<Partial<WireRequest>[]>("clients_wire/probe_out.json");
