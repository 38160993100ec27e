/**
 * The OpenAPI document against the running Worker. The document must be valid OpenAPI 3.1
 * (@seriousme/openapi-schema-validator), and every operation in it is called: its success request and a
 * request for each error status it documents, each answer checked against the document with ajv (JSON
 * Schema 2020-12, as OpenAPI 3.1 uses). The test fails when an answer's status is not documented for the
 * operation or its body does not match. Runs in Node: ajv compiles validators with `new Function`, which
 * workerd forbids.
 *
 * Error requests are derived from the document where they can be: 401 without credentials, 403 with a
 * credential of another kind (or a private app without the scope), 400 with malformed JSON or invalid path
 * values, 404 with an unknown id, 413 with a body over the operation's x-max-body-bytes, 429 with an
 * account limited to one request per 10 s. Cases (contract-cases.ts) add the rest or say why a status
 * cannot be provoked. An operation without a case fails the guard test, so new routes must join the table.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { CASES, type Case, type Req } from "./contract-cases";
import { buildFixtures, type Fixtures } from "./contract-fixtures";
import { fetchAgainIfClosed, workerUrl } from "./helpers";

interface MediaDoc {
  schema?: unknown;
}
interface ResponseDoc {
  description: string;
  content?: Record<string, MediaDoc>;
}
interface OperationDoc {
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, MediaDoc>; "x-max-body-bytes"?: number };
  responses: Record<string, ResponseDoc>;
}
interface OpenApiDoc {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, OperationDoc>>;
  components: { schemas: Record<string, unknown> };
}
interface Op {
  key: string;
  method: string;
  path: string;
  doc: OperationDoc;
}

/** Error statuses no request can provoke on purpose: every operation documents 500 for the unexpected. */
const NEVER_PROVOKED = new Set([500]);

let doc: OpenApiDoc;
let ops: Op[];
let f: Fixtures;
const validators = new Map<string, ValidateFunction>();
let ajv: Ajv2020;

beforeAll(async () => {
  f = await buildFixtures();
  doc = (await (await fetch(`${workerUrl()}/openapi.json`)).json()) as OpenApiDoc;
  ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, doc: op })));
  // Component references are rewritten to one registered schema of definitions, so that each response
  // schema compiles on its own.
  const BASE = "https://contract.test/components";
  const rewritten = JSON.parse(JSON.stringify(doc).replaceAll('"#/components/schemas/', `"${BASE}#/$defs/`)) as OpenApiDoc;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: BASE, $defs: rewritten.components.schemas });
  // Most responses share a schema (every error refers to the one envelope): each distinct schema compiles once.
  const compiled = new Map<string, ValidateFunction>();
  for (const [path, item] of Object.entries(rewritten.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const [status, res] of Object.entries(op.responses)) {
        const schema = res.content?.["application/json"]?.schema ?? res.content?.["application/x-ndjson"]?.schema;
        if (!schema) continue;
        const text = JSON.stringify(schema);
        if (!compiled.has(text)) compiled.set(text, ajv.compile(schema as object));
        validators.set(`${method.toUpperCase()} ${path} ${status}`, compiled.get(text)!);
      }
    }
  }
}, 120_000);

interface Answer {
  status: number;
  type: string;
  text: string;
}

async function send(op: Op, r: Req): Promise<Answer> {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = r.params?.[name];
    if (v === undefined) throw new Error(`${op.key}: no value for {${name}}`);
    return encodeURIComponent(String(v));
  });
  const url = new URL(`${workerUrl()}${path}`);
  for (const [k, v] of Object.entries(r.query ?? {})) url.searchParams.append(k, v);
  const headers: Record<string, string> = { ...r.headers };
  if (r.token) headers.authorization = `Bearer ${r.token}`;
  if (r.cookie) headers.cookie = r.cookie;
  let body: string | undefined;
  if (r.raw !== undefined) {
    body = r.raw;
    headers["content-type"] ??= Object.keys(op.doc.requestBody?.content ?? {})[0] ?? "application/json";
  } else if (r.form) {
    body = new URLSearchParams(r.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  } else if (r.json !== undefined) {
    body = JSON.stringify(r.json);
    headers["content-type"] = "application/json";
  }
  const init = { method: op.method, headers, body, redirect: "manual" as const };
  const res = await fetchAgainIfClosed(url, init);
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

/** The answer's status is documented for the operation and its body is what that status documents. */
function conforms(op: Op, a: Answer, what: string): void {
  const where = `${op.key} (${what}) answered ${a.status} ${a.text.slice(0, 400)}`;
  const res = op.doc.responses[String(a.status)];
  expect(res, `undocumented status: ${where}`).toBeDefined();
  const content = res!.content ?? {};
  if (a.text === "") {
    expect(Object.keys(content), `documented a body, got none: ${where}`).toEqual([]);
    return;
  }
  const raw = (res as { "x-raw-body"?: string })["x-raw-body"];
  if (raw !== undefined) {
    // A recorded non-JSON body under a JSON label (x-raw-body): it must be exactly that body.
    expect(a.text, `not the documented raw body: ${where}`).toBe(raw);
    return;
  }
  if (a.type.startsWith("application/json")) {
    const validate = validators.get(`${op.key} ${a.status}`);
    expect(validate, `JSON body not documented: ${where}`).toBeDefined();
    const valid = validate!(JSON.parse(a.text));
    expect(valid, `${where}\n${ajv.errorsText(validate!.errors, { separator: "\n" })}`).toBe(true);
    return;
  }
  if (a.type.startsWith("application/x-ndjson")) {
    // JSON lines: the documented schema is one line's.
    const validate = validators.get(`${op.key} ${a.status}`);
    expect(content["application/x-ndjson"] && validate, `NDJSON not documented: ${where}`).toBeTruthy();
    for (const line of a.text.trimEnd().split("\n")) expect(validate!(JSON.parse(line)), `${where}\n${line}\n${ajv.errorsText(validate!.errors)}`).toBe(true);
    return;
  }
  if (a.type.startsWith("text/html")) {
    expect(content["text/html"], `HTML not documented: ${where}`).toBeDefined();
    return;
  }
  throw new Error(`unexpected content type ${a.type}: ${where}`);
}

/** The generic request for an error status, derived from the operation and its success request. */
function derived(op: Op, status: number, base: Req): Req | null {
  const anonymous: Req = { ...base, token: undefined, cookie: undefined };
  const body = op.doc.requestBody;
  const form = body && "application/x-www-form-urlencoded" in body.content;
  switch (status) {
    case 400:
      if (body) return form ? { ...base, form: {} } : { ...base, json: undefined, form: undefined, raw: "{" };
      // Not a number, not in a closed list, and longer than any id or name the API takes.
      if (Object.keys(base.params ?? {}).length) return { ...base, params: Object.fromEntries(Object.keys(base.params!).map((k) => [k, "!".repeat(1001)])) };
      return null;
    case 401:
      return anonymous;
    case 403: {
      const developer = op.doc.security?.some((s) => "developerKey" in s);
      return { ...base, token: developer ? f.lowPat : f.t.developerKey };
    }
    case 404: {
      const names = op.path.match(/\{(\w+)\}/g)?.map((n) => n.slice(1, -1)) ?? [];
      const last = names.at(-1);
      return last ? { ...base, params: { ...base.params, [last]: "999999999" } } : null;
    }
    case 413: {
      const max = body?.["x-max-body-bytes"];
      return max ? { ...base, json: undefined, form: undefined, raw: " ".repeat(max + 1) } : null;
    }
    case 429:
      return { ...base, token: base.token === f.t.pat ? f.limited.pat : f.limited.oauth };
    default:
      return null;
  }
}

/** Spends the limited account's one request per 10 s, so that its next request is a 429. */
async function exhaust(token: string) {
  for (let i = 0; i < 2; i++) await fetch(`${workerUrl()}/crm/v3/objects/contacts?limit=1`, { headers: { authorization: `Bearer ${token}` } });
}

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("names the origin it was fetched from as its first server, and the local default", () => {
    expect(doc.servers?.map((s) => s.url)).toEqual([workerUrl(), "http://localhost:8787"]);
  });

  it("has a case for every operation, and no case for an operation it lacks (guard)", () => {
    const keys = ops.map((o) => o.key).sort();
    expect(keys.filter((k) => !(k in CASES)), "operations without a case in test/node/contract-cases.ts").toEqual([]);
    expect(Object.keys(CASES).filter((k) => !keys.includes(k)), "cases for operations the document lacks").toEqual([]);
  });

  it("refers every error status of every operation to one error schema", () => {
    for (const op of ops) {
      for (const [status, res] of Object.entries(op.doc.responses)) {
        if (Number(status) < 400) continue;
        const ref = (res.content?.["application/json"]?.schema as { $ref?: string } | undefined)?.$ref;
        const html = res.content?.["text/html"];
        expect(html ?? ref, `${op.key} ${status}`).toBeTruthy();
        if (!html) expect(["#/components/schemas/Error", "#/components/schemas/OAuthError"], `${op.key} ${status}`).toContain(ref);
      }
      expect(Object.keys(op.doc.responses), op.key).toContain("500");
    }
  });
});

describe("every operation answers what the document describes", () => {
  const keys = Object.keys(CASES);
  // Each case makes the records it changes, so cases run a few at a time (vitest's maxConcurrency, 5):
  // the file waits on the Worker, and one at a time it was the suite's longest file.
  it.concurrent.each(keys)("%s", async (key) => {
    const op = ops.find((o) => o.key === key);
    expect(op, `${key} is not in the document`).toBeDefined();
    const c: Case = CASES[key]!;
    const base = await c.ok(f);
    const success = await send(op!, base);
    expect(success.status, `${key}: ${success.text.slice(0, 400)}`).toBeLessThan(400);
    conforms(op!, success, "success");

    // The documented error statuses, and those the case provokes whether documented or not (then the
    // answer fails as undocumented).
    const documented = Object.keys(op!.doc.responses).map(Number).filter((s) => s >= 400 && !NEVER_PROVOKED.has(s));
    const statuses = [...new Set([...documented, ...Object.keys(c.errors ?? {}).map(Number)])];
    for (const status of statuses) {
      if (c.cannot?.[status]) continue;
      const make = c.errors?.[status];
      const req = make ? await make(f) : derived(op!, status, await c.ok(f));
      expect(req, `${key}: no request provokes the documented ${status}; add one to its case or say why in cannot`).not.toBeNull();
      if (status === 429) await exhaust(req!.token!);
      let answer = await send(op!, req!);
      // The limited account's window is 10 s: on a loaded machine it can roll over between spending it and
      // the request, which then passes the limiter. Spend it again and resend (never more than twice).
      for (let again = 0; status === 429 && answer.status !== 429 && again < 2; again++) {
        await exhaust(req!.token!);
        answer = await send(op!, req!);
      }
      expect(answer.status, `${key}: meant to provoke ${status}, got ${answer.status} ${answer.text.slice(0, 400)}`).toBe(status);
      conforms(op!, answer, `provoked ${status}`);
    }
    // A case makes a few requests per documented status, some of them whole accounts: under a minute on an
    // idle machine for the slowest, and several times that beside the rest of the suite on two cores.
  }, 240_000);
});
