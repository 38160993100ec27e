/**
 * @module The layers of src/, kept by the linter: imports go down, never up, and no import circle.
 *
 * From the top: index.ts (wires) → router.ts (the request pipeline) → routes/, cron/, queue/ (entry points)
 * → views/ (the web app's HTML) → http/ (what routes share: the route type, auth, sessions, rate limits)
 * → services/ (the domain, one folder per family) → durable-objects/ (each class with its client)
 * → schemas/ (zod request schemas) → db/ (tables, raw SQL, shard routing, the directory, fan-out)
 * → lib/ (pure helpers: they import nothing of ours but lib/).
 *
 * A file may import from its own layer and from the layers below it. Two rules:
 * - `layers/imports-go-down`: an import of a higher layer is an error, naming both layers;
 * - `layers/no-cycle`: a file that is part of an import circle (type-only imports count too) is an error,
 *   naming the circle. The graph is read once per lint run from the files under the linted file's `src/`.
 *
 * docs/how-to/contribute.md ("Layers") says the same for people.
 */
import fs from "node:fs";
import path from "node:path";

/** Top first. Entry points share a rank: none of them imports another. */
export const LAYERS = [
  ["index.ts"],
  ["router.ts"],
  ["routes", "cron", "queue"],
  ["views"],
  ["http"],
  ["services"],
  ["durable-objects"],
  ["schemas"],
  ["db"],
  ["lib", "types"],
];

/** The layer of a path inside src/ ("routes/crm/objects.ts" → rank 2, "routes"), or null outside src/. */
export function layerOf(srcRelative) {
  const first = srcRelative.split("/")[0];
  const rank = LAYERS.findIndex((names) => names.includes(first));
  return rank < 0 ? null : { rank, name: first };
}

/** Where an import points, as a path relative to src/, or null when it leaves src/ or is a package. */
function targetOf(srcDir, file, spec) {
  if (!spec.startsWith(".")) return null;
  const abs = path.resolve(path.dirname(file), spec);
  const rel = path.relative(srcDir, abs).split(path.sep).join("/");
  if (rel.startsWith("..")) return null;
  for (const candidate of [rel, `${rel}.ts`, `${rel}/index.ts`]) {
    if (fs.existsSync(path.join(srcDir, candidate)) && fs.statSync(path.join(srcDir, candidate)).isFile()) return candidate;
  }
  return rel.endsWith(".ts") ? rel : `${rel}.ts`;
}

/** The src/ folder a file lives under, or null. */
function srcDirOf(file) {
  const parts = path.resolve(file).split(path.sep);
  const at = parts.lastIndexOf("src");
  return at < 0 ? null : parts.slice(0, at + 1).join(path.sep);
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s+)?["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

/** Relative import specifiers of a source text (static, re-exports and dynamic). */
export function importsOf(text) {
  const out = [];
  for (const m of text.matchAll(IMPORT)) out.push(m[1] ?? m[2]);
  return out;
}

/** The import graph of every .ts file under srcDir: src-relative path → src-relative targets. */
export function graphOf(srcDir) {
  const graph = new Map();
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (entry.name.endsWith(".ts")) {
        const rel = path.relative(srcDir, abs).split(path.sep).join("/");
        const targets = importsOf(fs.readFileSync(abs, "utf8")).map((s) => targetOf(srcDir, abs, s)).filter(Boolean);
        graph.set(rel, [...new Set(targets)]);
      }
    }
  };
  walk(srcDir);
  return graph;
}

/** The circles of a graph (strongly connected components of two or more files, or a file importing itself). */
export function circlesOf(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const circles = [];
  const visit = (v) => {
    const s = { index, low: index, onStack: true };
    index++;
    state.set(v, s);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      const t = state.get(w);
      if (!t) {
        visit(w);
        s.low = Math.min(s.low, state.get(w).low);
      } else if (t.onStack) s.low = Math.min(s.low, t.index);
    }
    if (s.low === s.index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        state.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!state.has(v)) visit(v);
  return circles;
}

/** A folder as "routes/", a top-level file as itself. */
const shown = (name) => (name.endsWith(".ts") ? name : `${name}/`);

const importGoesUp = {
  meta: { type: "problem", messages: { up: "{{from}} may not import {{to}} ({{spec}}): imports go down the layers (scripts/lint/layers.mjs)" }, schema: [] },
  create(context) {
    const file = context.filename;
    const srcDir = srcDirOf(file);
    if (!srcDir) return {};
    const from = layerOf(path.relative(srcDir, file).split(path.sep).join("/"));
    if (!from) return {};
    const check = (node, spec) => {
      if (typeof spec !== "string") return;
      const target = targetOf(srcDir, file, spec);
      const to = target && layerOf(target);
      if (to && to.rank < from.rank) context.report({ node, messageId: "up", data: { from: shown(from.name), to: shown(to.name), spec } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === "Literal" && check(node, node.source.value),
    };
  },
};

/** One graph per src/ folder and lint run. */
const circleCache = new Map();
function circlesUnder(srcDir) {
  if (!circleCache.has(srcDir)) {
    const byFile = new Map();
    for (const circle of circlesOf(graphOf(srcDir))) for (const f of circle) byFile.set(f, circle);
    circleCache.set(srcDir, byFile);
  }
  return circleCache.get(srcDir);
}

const noCycle = {
  meta: { type: "problem", messages: { circle: "import circle: {{files}}" }, schema: [] },
  create(context) {
    const file = context.filename;
    const srcDir = srcDirOf(file);
    if (!srcDir) return {};
    const circle = circlesUnder(srcDir).get(path.relative(srcDir, file).split(path.sep).join("/"));
    if (!circle) return {};
    return { Program: (node) => context.report({ node, messageId: "circle", data: { files: circle.join(" → ") } }) };
  },
};

export default { meta: { name: "layers" }, rules: { "imports-go-down": importGoesUp, "no-cycle": noCycle } };
