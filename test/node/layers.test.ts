/**
 * The linter keeps the layers of src/ (scripts/lint/layers.mjs, docs/how-to/contribute.md "Layers"): an
 * import that climbs a layer and a file in an import circle are lint errors, and the repository's own
 * src/ has neither.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { afterAll, describe, expect, it } from "vitest";
import layers, { circlesOf, layerOf } from "../../scripts/lint/layers.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The layer-rule messages ESLint gives for a text as if it were the file at `file` (repo-relative). */
async function layerMessages(file: string, text: string) {
  const [result] = await eslint.lintText(text, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId?.startsWith("layers/")).map((m) => m.message);
}

describe("imports go down the layers", () => {
  it.each([
    ["src/lib/new-helper.ts", "../db/client", "lib/ may not import db/"],
    ["src/lib/new-helper.ts", "../services/crm/records", "lib/ may not import services/"],
    ["src/db/new-table.ts", "../schemas/crm/objects", "db/ may not import schemas/"],
    ["src/schemas/new-family.ts", "../services/crm/records", "schemas/ may not import services/"],
    ["src/services/crm/new-service.ts", "../../http/auth", "services/ may not import http/"],
    ["src/services/crm/new-service.ts", "../../routes/crm/objects", "services/ may not import routes/"],
    ["src/durable-objects/new-object.ts", "../services/ecomm/consumer", "durable-objects/ may not import services/"],
    ["src/http/new-step.ts", "../routes/index", "http/ may not import routes/"],
    ["src/routes/crm/new-route.ts", "../../router", "routes/ may not import router.ts"],
  ])("%s importing %s is an error", async (file, spec, message) => {
    const found = await layerMessages(file, `import { x } from "${spec}";\nexport const y = x;\n`);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(message);
  });

  it.each([
    ["src/routes/crm/new-route.ts", "../../services/crm/records"],
    ["src/routes/crm/new-route.ts", "../../http/route"],
    ["src/services/crm/new-service.ts", "../../schemas/crm/objects"],
    ["src/services/crm/new-service.ts", "../webhooks/events"],
    ["src/durable-objects/new-object.ts", "../db/shards"],
    ["src/lib/new-helper.ts", "./errors"],
    ["src/queue/new-dispatch.ts", "../services/ecomm/consumer"],
  ])("%s importing %s is allowed", async (file, spec) => {
    expect(await layerMessages(file, `import { x } from "${spec}";\nexport const y = x;\n`)).toEqual([]);
  });

  it("counts re-exports, type-only and dynamic imports too", async () => {
    expect(await layerMessages("src/lib/new-helper.ts", `export { x } from "../db/client";\n`)).toHaveLength(1);
    expect(await layerMessages("src/lib/new-helper.ts", `import type { X } from "../db/client";\nexport type Y = X;\n`)).toHaveLength(1);
    expect(await layerMessages("src/lib/new-helper.ts", `export const load = () => import("../db/client");\n`)).toHaveLength(1);
  });

  it("knows every folder of src/", () => {
    expect(layerOf("routes/crm/objects.ts")!.name).toBe("routes");
    expect(layerOf("lib/errors.ts")!.rank).toBeGreaterThan(layerOf("db/client.ts")!.rank);
    expect(layerOf("unknown/thing.ts")).toBeNull();
  });
});

describe("no import circle", () => {
  it("finds circles of two files, of three, and a file importing itself", () => {
    const graph = new Map<string, string[]>([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["a.ts", "c.ts"]],
      ["c.ts", ["d.ts"]],
      ["d.ts", ["e.ts"]],
      ["e.ts", ["c.ts"]],
      ["f.ts", ["f.ts"]],
      ["g.ts", ["a.ts"]],
    ]);
    expect(circlesOf(graph).map((c) => c.join(" ")).sort()).toEqual(["a.ts b.ts", "c.ts d.ts e.ts", "f.ts"]);
    expect(circlesOf(new Map([["a.ts", ["b.ts"]], ["b.ts", []]]))).toEqual([]);
  });

  const tmp = mkdtempSync(path.join(tmpdir(), "layers-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("fails lint on both files of a circle, naming it", async () => {
    mkdirSync(path.join(tmp, "src/services/accounts"), { recursive: true });
    mkdirSync(path.join(tmp, "src/services/ecomm"), { recursive: true });
    writeFileSync(path.join(tmp, "src/services/accounts/hooks.ts"), `import { clean } from "../ecomm/stores";\nexport const hooks = [clean];\n`);
    writeFileSync(path.join(tmp, "src/services/ecomm/stores.ts"), `import type { hooks } from "../accounts/hooks";\nexport const clean = (): typeof hooks => [];\n`);
    writeFileSync(path.join(tmp, "src/services/ecomm/alone.ts"), `export const alone = 1;\n`);
    const local = new ESLint({
      cwd: tmp,
      overrideConfigFile: true,
      overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parser: (await import("typescript-eslint")).parser }, plugins: { layers }, rules: { "layers/no-cycle": "error" } }],
    });
    const results = await local.lintFiles(["src"]);
    const byFile = Object.fromEntries(results.map((r) => [path.relative(tmp, r.filePath), r.messages.map((m) => m.message)]));
    expect(byFile["src/services/accounts/hooks.ts"]).toEqual(["import circle: services/accounts/hooks.ts → services/ecomm/stores.ts"]);
    expect(byFile["src/services/ecomm/stores.ts"]).toEqual(["import circle: services/accounts/hooks.ts → services/ecomm/stores.ts"]);
    expect(byFile["src/services/ecomm/alone.ts"]).toEqual([]);
  });
});

describe("the repository", () => {
  it("lints src/ with both layer rules", async () => {
    const rules = ((await eslint.calculateConfigForFile(path.join(root, "src/routes/crm/objects.ts"))) as { rules: Record<string, unknown> }).rules;
    expect(rules["layers/imports-go-down"]).toEqual([2]);
    expect(rules["layers/no-cycle"]).toEqual([2]);
  });

  it("has no upward import and no circle in src/", async () => {
    // Only the two layer rules: the other rules are `npm run lint`'s, and running them all here doubled the file's time.
    const layersOnly = new ESLint({
      cwd: root,
      overrideConfigFile: true,
      overrideConfig: [{ files: ["src/**/*.ts"], languageOptions: { parser: (await import("typescript-eslint")).parser }, plugins: { layers }, rules: { "layers/imports-go-down": "error", "layers/no-cycle": "error" } }],
    });
    const results = await layersOnly.lintFiles(["src"]);
    const found = results.flatMap((r) => r.messages.filter((m) => m.ruleId?.startsWith("layers/")).map((m) => `${path.relative(root, r.filePath)}: ${m.message}`));
    expect(results.length).toBeGreaterThan(150);
    expect(found).toEqual([]);
  }, 180_000);

  it("has no file directly under routes/ or services/ but the folder's index.ts", async () => {
    const { readdirSync } = await import("node:fs");
    for (const folder of ["src/routes", "src/services"]) {
      const loose = readdirSync(path.join(root, folder), { withFileTypes: true }).filter((e) => e.isFile() && e.name !== "index.ts");
      expect(loose.map((e) => `${folder}/${e.name}`)).toEqual([]);
    }
  });
});
