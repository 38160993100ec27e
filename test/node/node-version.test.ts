/**
 * The suite runs on the Node versions the README and package.json `engines` name: the current LTS lines,
 * 22 and 24 (wrangler needs >= 22.12). CI runs this project on both.
 */
import { readFileSync } from "node:fs";
import { Client } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { workerUrl } from "./helpers";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe("supported Node version", () => {
  it("package.json engines names Node >= 22.12, and this run is on a version it allows", () => {
    expect(pkg.engines.node).toBe(">=22.12.0");
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    expect(major === 22 ? minor >= 12 : major >= 24).toBe(true);
  });

  it("the project brings its own Node 24 (an exact devDependency), so `npm run` works where the system Node is older", () => {
    expect(pkg.devDependencies.node).toMatch(/^24\.\d+\.\d+$/);
  });

  it("@hubspot/api-client sends and reads a request on it (global fetch)", async () => {
    const res = await new Client({ accessToken: "not-a-token", basePath: workerUrl() }).apiRequest({ path: "/contacts/v1/lists/all/contacts/all" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: "error" });
  });
});
