/**
 * Every call of the unmodified @hubspot/api-client in its codegen folders `crm`, `oauth` and `webhooks`, read
 * from the package itself so that the list follows the pinned version and nobody keeps one by hand.
 *
 * A call is one method of a generated `*RequestFactory` class (the layer that builds the HTTP request; the
 * Observable and Promise classes above it only forward). Its HTTP method, path template and parameters come
 * from the factory's compiled source, which is regular generator output. The accessor is found by walking a
 * real `Client`'s discovery tree and matching each API instance's factory class to the module that defines it,
 * so it is the name an integrator types. Calls with the same method and path (the same endpoint generated into
 * two folders) count once, under the first accessor; the others are kept as aliases.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";

const require = createRequire(import.meta.url);
/** The codegen folders the meter covers. */
export const ROOTS = ["crm", "oauth", "webhooks"] as const;
const PACKAGE = dirname(require.resolve("@hubspot/api-client/package.json"));
export const CODEGEN = join(PACKAGE, "lib", "codegen");

export interface CallParam {
  /** The factory's argument name, e.g. `objectType` or `simplePublicObjectInputForCreate`. */
  name: string;
  required: boolean;
  in: "path" | "query" | "body" | "form" | "other";
  /** ObjectSerializer type, e.g. `string`, `Array<string>`, `BatchInputSimplePublicObjectId`; "" when unknown. */
  type: string;
  /** The name on the wire: the path placeholder, query key or form field. */
  wire: string;
}

export interface ClientCall {
  /** The folder under codegen, e.g. `crm/objects/notes` or `oauth`. */
  family: string;
  /** Absolute folder of the family's generated module (its `models/` sit beside `apis/`). */
  dir: string;
  api: string;
  method: string;
  /** e.g. `crm.objects.notes.basicApi.getPage`. */
  accessor: string;
  httpMethod: string;
  /** e.g. `/crm/v3/objects/{objectType}`. */
  path: string;
  params: CallParam[];
  /** The status the response processor accepts, e.g. `200` or `204` (any other status rejects). */
  status: string;
  /** The compiled module that defines the API class. */
  file: string;
  /**
   * Whether a `Client` reaches the API class. The package also ships a few generated API modules that no
   * index or discovery class imports; their calls are the package's all the same, and the meter sends them
   * with the package's own factory and response processor over the family's configuration.
   */
  exposed: boolean;
  /** Other accessors generated for the same method and path. */
  aliases: string[];
}

/** Method and path; a trailing slash does not make another endpoint (`/crm/v3/owners/` and `/crm/v3/owners`). */
export const callKey = (c: { httpMethod: string; path: string }) => `${c.httpMethod} ${c.path.replace(/\/+$/, "")}`;

function apiFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...apiFiles(full));
    else if (/\/apis\/\w+Api\.js$/.test(full.split(sep).join("/"))) out.push(full);
  }
  return out;
}

/** The methods of the file's RequestFactory class, each with its source text. */
function factoryMethods(source: string): { name: string; args: string[]; body: string }[] {
  const start = source.search(/class \w+RequestFactory extends/);
  const end = source.indexOf("\nclass ", start + 1);
  const cls = source.slice(start, end === -1 ? undefined : end);
  const heads = [...cls.matchAll(/^ {4}(\w+)\(([^)]*)\) \{$/gm)];
  return heads.map((m, i) => ({
    name: m[1]!,
    args: m[2]!.split(",").map((a) => a.trim()).filter((a) => a && a !== "_options"),
    body: cls.slice(m.index, heads[i + 1]?.index),
  }));
}

/** The status each method's response processor checks first: the documented success. */
function documentedStatus(source: string, method: string): string {
  const start = source.search(/class \w+ResponseProcessor \{/);
  const from = source.indexOf(`    ${method}WithHttpInfo(response) {`, start);
  return (from === -1 ? undefined : source.slice(from).match(/isCodeInRange\)\("(\w+)"/)?.[1]) ?? "2XX";
}

function paramsOf(args: string[], body: string): CallParam[] {
  const required = new Set([...body.matchAll(/RequiredError\("\w+", "\w+", "(\w+)"\)/g)].map((m) => m[1]));
  return args.map((name) => {
    const param: CallParam = { name, required: required.has(name), in: "other", type: "", wire: name };
    const pathRe = new RegExp(`\\.replace\\('\\{' \\+ '(\\w+)' \\+ '\\}', encodeURIComponent\\(String\\(${name}\\)\\)\\)`);
    const queryRe = new RegExp(`if \\(${name} !== undefined\\) \\{\\s*(?:const serializedParams = ObjectSerializer_1\\.ObjectSerializer\\.serialize\\(${name}, "([^"]+)"[^\\n]*\\n\\s*for \\(const serializedParam of serializedParams\\) \\{\\s*requestContext\\.appendQueryParam\\("([^"]+)"|requestContext\\.setQueryParam\\("([^"]+)", ObjectSerializer_1\\.ObjectSerializer\\.serialize\\(${name}, "([^"]+)")`);
    const bodyRe = new RegExp(`ObjectSerializer_1\\.ObjectSerializer\\.serialize\\(${name}, "([^"]+)", "[^"]*"\\), contentType\\)`);
    const formRe = new RegExp(`localVarFormParams\\.append\\('([^']+)', ${name}\\b`);
    let m: RegExpMatchArray | null;
    if ((m = body.match(pathRe))) Object.assign(param, { in: "path", type: "string", wire: m[1] });
    else if ((m = body.match(queryRe))) Object.assign(param, m[1] ? { in: "query", type: m[1], wire: m[2] } : { in: "query", type: m[4], wire: m[3] });
    else if ((m = body.match(bodyRe))) Object.assign(param, { in: "body", type: m[1] });
    else if ((m = body.match(formRe))) Object.assign(param, { in: "form", type: "string", wire: m[1] });
    return param;
  });
}

interface ApiInstance {
  api: { requestFactory: object };
}
const isApi = (v: unknown): v is ApiInstance =>
  typeof v === "object" && v !== null && typeof (v as Partial<ApiInstance>).api?.requestFactory === "object";

/**
 * Accessor of every API instance under a root of a real Client, by the factory class it builds requests
 * with. The discovery objects create their children in lazy getters, so reading each getter is enough.
 */
function accessors(): Map<Function, string> { // eslint-disable-line @typescript-eslint/no-unsafe-function-type -- keyed by class identity
  const { Client } = require("@hubspot/api-client") as { Client: new (o: object) => Record<string, unknown> };
  const client = new Client({ accessToken: "enumeration-only" });
  const found = new Map<Function, string>(); // eslint-disable-line @typescript-eslint/no-unsafe-function-type -- as above
  const walk = (node: Record<string, unknown>, at: string, depth: number) => {
    if (depth > 6) return;
    const names = new Set(Object.keys(node).filter((k) => !k.startsWith("_") && k !== "config"));
    for (let proto = Object.getPrototypeOf(node); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(proto))) if (d.get && !k.startsWith("_")) names.add(k);
    }
    for (const name of names) {
      const value = node[name];
      if (isApi(value)) {
        const ctor = value.api.requestFactory.constructor;
        if (!found.has(ctor)) found.set(ctor, `${at}.${name}`);
      } else if (typeof value === "object" && value !== null && value.constructor.name.endsWith("Discovery")) {
        walk(value as Record<string, unknown>, `${at}.${name}`, depth + 1);
      }
    }
  };
  for (const root of ROOTS) walk(client[root] as Record<string, unknown>, root, 0);
  return found;
}

/** Every call, deduplicated by method and path, in the order of family, API and method. */
export function clientCalls(): ClientCall[] {
  const byFactory = accessors();
  const all: ClientCall[] = [];
  for (const root of ROOTS) {
    for (const file of apiFiles(join(CODEGEN, root)).sort()) {
      const apiDir = dirname(file);
      const dir = dirname(apiDir);
      const family = relative(CODEGEN, dir).split(sep).join("/");
      const api = file.slice(apiDir.length + 1, -".js".length);
      const factory = (require(file) as Record<string, Function>)[`${api}RequestFactory`]; // eslint-disable-line @typescript-eslint/no-unsafe-function-type -- matched by identity only
      // An API the Client does not expose is still the package's call; it is named by its folder.
      const reached = factory && byFactory.get(factory);
      const owner = reached ?? `${family.replaceAll("/", ".")}.${api[0]!.toLowerCase()}${api.slice(1)}`;
      const source = readFileSync(file, "utf8");
      for (const m of factoryMethods(source)) {
        const path = m.body.match(/localVarPath = '([^']+)'/)?.[1];
        const httpMethod = m.body.match(/HttpMethod\.(\w+)/)?.[1];
        if (!path || !httpMethod) throw new Error(`${family}/${api}.${m.name}: no path or method in the generated source`);
        all.push({ family, dir, api, method: m.name, accessor: `${owner}.${m.name}`, httpMethod, path, params: paramsOf(m.args, m.body), status: documentedStatus(source, m.name), file, exposed: !!reached, aliases: [] });
      }
    }
  }
  // The Client's own accessor names a call first; an unexposed module's duplicate becomes an alias.
  const unique = new Map<string, ClientCall>();
  for (const call of [...all.filter((c) => c.exposed), ...all.filter((c) => !c.exposed)]) {
    const first = unique.get(callKey(call));
    if (first) first.aliases.push(call.accessor);
    else unique.set(callKey(call), call);
  }
  const order = (c: ClientCall) => `${c.family}\u0000${c.accessor}`;
  return [...unique.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}
