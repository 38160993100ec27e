/** Talks to the local integrator (test/integrator/server.ts) from inside workerd. */
import { inject } from "vitest";
import type { Recorded, Script } from "../integrator/types";

export const integratorUrl = () => inject("integratorUrl");

/** A unique path on the integrator, so tests never read each other's requests. */
export const integratorPath = (name: string) => `/${name}-${crypto.randomUUID()}`;

export async function script(path: string, s: Script) {
  const res = await fetch(`${integratorUrl()}/__script`, { method: "POST", body: JSON.stringify({ path, ...s }) });
  if (res.status !== 204) throw new Error(`script failed: ${res.status}`);
}

export async function received(path: string): Promise<Recorded[]> {
  const res = await fetch(`${integratorUrl()}/__requests?path=${encodeURIComponent(path)}`);
  return (await res.json()) as Recorded[];
}

/** A recorded exchange from ../shared/reference/traffic (path relative to that folder). */
export async function recording<T = any>(file: string): Promise<T> { // eslint-disable-line @typescript-eslint/no-explicit-any -- recordings are arbitrary JSON
  const res = await fetch(`${integratorUrl()}/__traffic/${file}`);
  if (res.status !== 200) throw new Error(`recording ${file} not found (${res.status})`);
  return (await res.json()) as T;
}
