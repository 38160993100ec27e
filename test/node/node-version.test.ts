/**
 * The suite runs on the Node version the README and package.json `engines` name (issue 17 §6). The test-only
 * @hubspot/api-client 14 declares Node >= 22, but its transport (lib/src/services/http/Transport.js) needs only
 * the global fetch, Response and Buffer, and the tests use neither its form-data uploads nor an http agent:
 * test/node/api-client.test.ts exercises it on this Node.
 */
import { readFileSync } from "node:fs";
import { Client } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { workerUrl } from "./helpers";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string } };

describe("supported Node version", () => {
  it("package.json engines names Node 20 (>= 20.19), and this run is on it", () => {
    expect(pkg.engines.node).toBe(">=20.19.0 <21");
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    expect(major).toBe(20);
    expect(minor).toBeGreaterThanOrEqual(19);
  });

  it("@hubspot/api-client sends and reads a request on it (global fetch)", async () => {
    const res = await new Client({ accessToken: "not-a-token", basePath: workerUrl() }).apiRequest({ path: "/contacts/v1/lists/all/contacts/all" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: "error" });
  });
});
