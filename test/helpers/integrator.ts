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
