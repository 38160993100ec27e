/** vitest globalSetup (Node): starts the local integrator and hands its URL to the tests. */
import type { TestProject } from "vitest/node";
import { startIntegrator } from "./integrator/server";
import "./integrator/types";

export default async function setup(project: TestProject) {
  const { server, url } = await startIntegrator();
  project.provide("integratorUrl", url);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
