/**
 * @module Timeline templates: Handlebars syntax, parsed with `Handlebars.parse` and evaluated by
 * the small interpreter below, because `Handlebars.compile` needs eval, which workerd forbids. Supported:
 * `{{path}}` (`a.b`, `../x`, `this`, `@index`/`@key`/`@first`/`@last`/`@root`), `#if`/`else`, `#unless`,
 * `#each` (arrays and objects, block params), `#with`, mustache sections, `#formatDate` and `lookup`.
 * The interpreter only reads own properties of JSON data and has a step and output budget, so a template
 * can neither reach prototypes nor spin forever. Escaping is not done here: the Markdown renderer
 * (src/services/timeline/render.ts) is the one place that turns text into HTML.
 */
// The parser alone: the package's main entry also bundles the runtime, the code generator and source-map,
// none of which run here (a third of the Worker's dependencies by size).
import { parse } from "handlebars/dist/cjs/handlebars/compiler/base";

export type Template = hbs.AST.Program;

export class TemplateError extends Error {}

/** Helpers the interpreter knows; `log` and `lookup` are why no property may take those names. */
const HELPERS = new Set(["if", "unless", "each", "with", "formatDate", "lookup", "log"]);

export function parseTemplate(source: string): Template {
  try {
    return parse(source);
  } catch (err) {
    // Handlebars' parse errors say where and what was expected; the first line is enough for a 400.
    const text = err instanceof Error ? err.message : String(err);
    throw new TemplateError(text.split("\n").filter((l) => l.trim() && !/^-*\^$/.test(l.trim())).join(" "));
  }
}

type AnyNode = hbs.AST.Node;

/** Every node of a template, depth first. */
function* walk(node: AnyNode | null | undefined): Generator<AnyNode> {
  if (!node) return;
  yield node;
  const n = node as unknown as Record<string, unknown>;
  for (const key of ["body", "params", "pairs"]) {
    const list = n[key];
    if (Array.isArray(list)) for (const child of list) yield* walk(child as AnyNode);
  }
  for (const key of ["path", "name", "hash", "program", "inverse", "value"]) {
    const child = n[key];
    if (child && typeof child === "object" && "type" in child) yield* walk(child as AnyNode);
  }
}

/**
 * Save-time check: the template must parse, must not use partials or decorators (there is
 * nothing to resolve them against), and a header template may not reference extraData.
 */
export function checkTemplate(source: string, kind: "header" | "detail"): string | null {
  let tpl: Template;
  try {
    tpl = parseTemplate(source);
  } catch (err) {
    return err instanceof TemplateError ? `template does not parse: ${err.message}` : "template does not parse";
  }
  for (const node of walk(tpl)) {
    if (node.type === "PartialStatement" || node.type === "PartialBlockStatement") return "partials are not supported";
    if (node.type === "Decorator" || node.type === "DecoratorBlock") return "decorators are not supported";
    if (kind === "header" && node.type === "PathExpression") {
      const path = node as hbs.AST.PathExpression;
      const head = path.data && path.parts[0] === "root" ? path.parts[1] : path.parts[0];
      if (head === "extraData") return "extraData can be referenced only in the detail template";
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// formatDate, as the real service formats dates: UTC, `Nov 18, 2014 3:47:11 PM` by default,
// `11/18/14 3:47 PM` when short.

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const pad2 = (n: number) => String(n).padStart(2, "0");

function toEpochMs(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const s = value.trim();
    return /^-?\d{1,16}$/.test(s) ? Number(s) : Date.parse(s);
  }
  return NaN;
}

export function formatDate(value: unknown, format?: unknown): string {
  const ms = toEpochMs(value);
  if (!Number.isFinite(ms)) return "";
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "";
  const month = MONTHS[d.getUTCMonth()] ?? "";
  const day = d.getUTCDate();
  const year = d.getUTCFullYear();
  const h = d.getUTCHours();
  const h12 = h % 12 === 0 ? 12 : h % 12;
  const ampm = h < 12 ? "AM" : "PM";
  const time = `${h12}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} ${ampm}`;
  switch (format) {
    case "short":
      return `${d.getUTCMonth() + 1}/${day}/${pad2(year % 100)} ${h12}:${pad2(d.getUTCMinutes())} ${ampm}`;
    case "long":
      return `${month} ${day}, ${year} ${time} UTC`;
    case "full":
      return `${DAYS[d.getUTCDay()] ?? ""}, ${month} ${day}, ${year} ${time} UTC`;
    default:
      return `${month.slice(0, 3)} ${day}, ${year} ${time}`;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The interpreter.

/** Budgets per evaluation: enough for any sensible timeline entry, small enough that none can hog the CPU. */
export const MAX_OUTPUT_CHARS = 100_000;
export const MAX_STEPS = 50_000;

class BudgetExceeded extends Error {}

interface Scope {
  ctx: unknown;
  parent: Scope | null;
  data: Record<string, unknown>;
  /** Block params (`as |item i|`) visible here, innermost last. */
  params: Record<string, unknown>;
}

interface State {
  out: string[];
  chars: number;
  steps: number;
  root: unknown;
}

/** Own properties only: a template can never reach `constructor`, `__proto__` or other inherited members. */
function member(obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== "object") return undefined;
  if (Array.isArray(obj)) {
    if (key === "length") return obj.length;
    return /^\d+$/.test(key) ? obj[Number(key)] : undefined;
  }
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

function resolvePath(path: hbs.AST.PathExpression, scope: Scope, state: State): unknown {
  if (path.data) {
    const [head, ...rest] = path.parts;
    let value: unknown = head === "root" ? state.root : head === undefined ? undefined : scope.data[head];
    for (const part of rest) value = member(value, part);
    return value;
  }
  let target: Scope = scope;
  for (let i = 0; i < path.depth && target.parent; i++) target = target.parent;
  const [head, ...rest] = path.parts;
  if (head === undefined) return target.ctx; // `this` or `.`
  let value: unknown;
  if (path.depth === 0 && Object.hasOwn(scope.params, head) && !/^this\b/.test(path.original)) value = scope.params[head];
  else value = member(target.ctx, head);
  for (const part of rest) value = member(value, part);
  return value;
}

function evalExpr(expr: hbs.AST.Expression, scope: Scope, state: State): unknown {
  switch (expr.type) {
    case "PathExpression":
      return resolvePath(expr as hbs.AST.PathExpression, scope, state);
    case "StringLiteral":
      return (expr as hbs.AST.StringLiteral).value;
    case "NumberLiteral":
      return (expr as hbs.AST.NumberLiteral).value;
    case "BooleanLiteral":
      return (expr as hbs.AST.BooleanLiteral).value;
    case "SubExpression": {
      const sub = expr as hbs.AST.SubExpression;
      return callHelper(sub.path.original, sub.params, sub.hash, scope, state);
    }
    default:
      return undefined;
  }
}

function hashValue(hash: hbs.AST.Hash | undefined, key: string, scope: Scope, state: State): unknown {
  const pair = hash?.pairs.find((p) => p.key === key);
  return pair ? evalExpr(pair.value, scope, state) : undefined;
}

/** Non-block helpers; an unknown helper renders nothing (Handlebars would throw "Missing helper"). */
function callHelper(name: string, params: hbs.AST.Expression[], hash: hbs.AST.Hash | undefined, scope: Scope, state: State): unknown {
  const args = params.map((p) => evalExpr(p, scope, state));
  switch (name) {
    case "formatDate":
      return formatDate(args[0], hashValue(hash, "format", scope, state));
    case "lookup":
      return typeof args[1] === "string" || typeof args[1] === "number" ? member(args[0], String(args[1])) : undefined;
    default:
      return undefined;
  }
}

/** Text of a value: objects and arrays as JSON, so extraData prints usefully rather than "[object Object]". */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

/** Handlebars' emptiness: falsy values and empty arrays (0 only with includeZero=false, the default). */
function isEmpty(value: unknown, includeZero: boolean): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (value === 0) return !includeZero;
  return !value;
}

function emit(state: State, text: string) {
  if (!text) return;
  state.chars += text.length;
  if (state.chars > MAX_OUTPUT_CHARS) throw new BudgetExceeded();
  state.out.push(text);
}

function child(scope: Scope, ctx: unknown, data: Record<string, unknown>, program: Template, blockArgs: unknown[]): Scope {
  const params = { ...scope.params };
  program.blockParams?.forEach((name, i) => (params[name] = blockArgs[i]));
  return { ctx, parent: scope, data: { ...scope.data, ...data }, params };
}

function iterate(value: unknown, block: hbs.AST.BlockStatement, scope: Scope, state: State) {
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : value && typeof value === "object"
      ? Object.entries(value)
      : [];
  if (entries.length === 0) return program(block.inverse, scope, state);
  entries.forEach(([key, item], i) => {
    const data = { index: i, key, first: i === 0, last: i === entries.length - 1 };
    program(block.program, child(scope, item, data, block.program, [item, key]), state);
  });
}

function blockStatement(block: hbs.AST.BlockStatement, scope: Scope, state: State) {
  const name = block.path.original;
  const first = block.params[0] ? evalExpr(block.params[0], scope, state) : undefined;
  switch (name) {
    case "if":
    case "unless": {
      const empty = isEmpty(first, hashValue(block.hash, "includeZero", scope, state) === true);
      return program(empty === (name === "if") ? block.inverse : block.program, scope, state);
    }
    case "with":
      if (isEmpty(first, true)) return program(block.inverse, scope, state);
      return program(block.program, child(scope, first, {}, block.program, [first]), state);
    case "each":
      return iterate(first, block, scope, state);
    case "formatDate":
      // HubSpot's form is `{{#formatDate x}}{{/formatDate}}`: the block body is not used.
      return emit(state, formatDate(first, hashValue(block.hash, "format", scope, state)));
    default: {
      if (HELPERS.has(name) || block.params.length > 0 || block.hash?.pairs.length) return; // unknown helper
      // A mustache section: iterate arrays, enter objects, test everything else.
      const value = resolvePath(block.path, scope, state);
      if (Array.isArray(value)) return iterate(value, block, scope, state);
      if (isEmpty(value, true)) return program(block.inverse, scope, state);
      const ctx = value === true ? scope.ctx : value;
      return program(block.program, child(scope, ctx, {}, block.program, [value]), state);
    }
  }
}

function program(prog: Template | undefined, scope: Scope, state: State): void {
  if (!prog) return;
  // Entering a program costs a step too, so loops over empty bodies are bounded as well.
  if (++state.steps > MAX_STEPS) throw new BudgetExceeded();
  for (const node of prog.body) {
    if (++state.steps > MAX_STEPS) throw new BudgetExceeded();
    switch (node.type) {
      case "ContentStatement":
        emit(state, (node as hbs.AST.ContentStatement).value);
        break;
      case "MustacheStatement": {
        const m = node as hbs.AST.MustacheStatement;
        if (m.path.type !== "PathExpression") break;
        const path = m.path as hbs.AST.PathExpression;
        const isHelper = m.params.length > 0 || m.hash?.pairs.length || (!path.data && path.parts.length === 1 && HELPERS.has(path.original));
        emit(state, toText(isHelper ? callHelper(path.original, m.params, m.hash, scope, state) : resolvePath(path, scope, state)));
        break;
      }
      case "BlockStatement":
        blockStatement(node as hbs.AST.BlockStatement, scope, state);
        break;
      default:
        // Comments render nothing; partials and decorators were refused when the template was saved.
        break;
    }
  }
}

/**
 * Evaluates a parsed template against JSON data. Past the step or output budget the text produced so far is
 * returned, followed by an ellipsis, rather than failing the whole timeline.
 */
export function evaluate(tpl: Template, data: Record<string, unknown>): string {
  const state: State = { out: [], chars: 0, steps: 0, root: data };
  try {
    program(tpl, { ctx: data, parent: null, data: {}, params: {} }, state);
  } catch (err) {
    if (!(err instanceof BudgetExceeded)) throw err;
    state.out.push("…");
  }
  return state.out.join("");
}
