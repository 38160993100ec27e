/** vitest globalSetup (Node): starts the local integrator and the build probe and hands their URLs to the tests. */
import type { TestProject } from "vitest/node";
import { startBuildProbe } from "./build-probe/server";
import "./build-probe/types";
import { startIntegrator } from "./integrator/server";
import "./integrator/types";

export default async function setup(project: TestProject) {
  const [integrator, probe] = await Promise.all([startIntegrator(), startBuildProbe()]);
  project.provide("integratorUrl", integrator.url);
  project.provide("buildProbeUrl", probe.url);
  const close = (s: typeof integrator.server) => new Promise<void>((resolve) => s.close(() => resolve()));
  return () => Promise.all([close(integrator.server), close(probe.server)]).then(() => undefined);
}
