/**
 * fast-check arbitraries derived from the routes' zod schemas: the schema's input JSON Schema
 * (z.toJSONSchema) gives near-valid values, and `mutated` breaks one part of them at a time, so the
 * generated requests probe every field's validation rather than failing at the first one.
 */
import fc from "fast-check";
import { z } from "zod";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Schema {
  type?: string | string[];
  enum?: Json[];
  const?: Json;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  propertyNames?: Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: Json;
}

const small = (n: number | undefined, cap: number) => Math.min(n ?? cap, cap);

/**
 * With `edges`, every documented limit is met exactly or passed by one, half of the time each: arrays of
 * maxItems and maxItems + 1, strings of maxLength and maxLength + 1, numbers at their bounds and one past.
 * The limit must be answered as documented and one past it with a 4xx: never a 5xx.
 */
function fromSchema(s: Schema, depth = 0, edges = false): fc.Arbitrary<Json> {
  const plain = fromSchemaPlain(s, depth, edges);
  if (!edges) return plain;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  const at: Json[] = [];
  if ((type === "integer" || type === "number") && s.enum === undefined && s.const === undefined) {
    if (s.maximum !== undefined) at.push(s.maximum, s.maximum + 1);
    if (s.minimum !== undefined) at.push(s.minimum, s.minimum - 1);
  }
  if (type === "string" && s.maxLength !== undefined && s.maxLength <= 100_000 && !s.pattern && !s.format && !s.enum) {
    at.push("x".repeat(s.maxLength), "x".repeat(s.maxLength + 1));
  }
  if (type === "array" && s.maxItems !== undefined && s.maxItems <= 1000) {
    // The items themselves stay small: a list at its limit of lists at theirs would be megabytes.
    const item = (s.items ? fromSchema(s.items, depth + 1) : fc.jsonValue({ maxDepth: 1 })) as fc.Arbitrary<Json>;
    const exactly = (n: number) => fc.array(item, { minLength: n, maxLength: n }) as fc.Arbitrary<Json>;
    return fc.oneof(plain, exactly(s.maxItems), exactly(s.maxItems + 1));
  }
  return at.length ? fc.oneof(plain, fc.constantFrom(...at)) : plain;
}

function fromSchemaPlain(s: Schema, depth: number, edges: boolean): fc.Arbitrary<Json> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length) return fc.oneof(...alts.map((a) => fromSchema(a, depth + 1, edges)));
  if (s.allOf?.length) return fromSchema(s.allOf[0]!, depth + 1, edges);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "object": {
      if (depth > 4) return fc.constant({});
      const props = s.properties ?? {};
      const keys = Object.keys(props);
      if (keys.length) {
        const rec: Record<string, fc.Arbitrary<Json>> = {};
        for (const k of keys) rec[k] = fromSchema(props[k]!, depth + 1, edges);
        return fc.record(rec, { requiredKeys: s.required ?? [] }) as fc.Arbitrary<Json>;
      }
      const value = typeof s.additionalProperties === "object" ? fromSchema(s.additionalProperties, depth + 1, edges) : fc.jsonValue({ maxDepth: 1 });
      const key = s.propertyNames?.pattern ? fc.stringMatching(new RegExp(s.propertyNames.pattern)) : fc.string({ maxLength: 10 });
      return fc.dictionary(key.filter((k) => k.length > 0 && k.length <= 100), value as fc.Arbitrary<Json>, { maxKeys: 4 });
    }
    case "array":
      return fc.array((s.items ? fromSchema(s.items, depth + 1, edges) : fc.jsonValue({ maxDepth: 1 })) as fc.Arbitrary<Json>, {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, small(s.maxItems, 4)),
      }) as fc.Arbitrary<Json>;
    case "integer": {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1e6);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1e9);
      return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) });
    }
    case "number":
      return fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null) as fc.Arbitrary<Json>;
    case "string": {
      if (s.format === "uri") return fc.webUrl();
      if (s.format === "email") return fc.emailAddress();
      if (s.pattern) {
        try {
          return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? 5000) && v.length >= (s.minLength ?? 0));
        } catch {
          /* a pattern fast-check cannot invert: fall through to plain strings */
        }
      }
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.max(s.minLength ?? 0, small(s.maxLength, 40)) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
  }
}

export function schemaArbitrary(schema: z.ZodType, edges = false): fc.Arbitrary<Json> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Schema;
  return fromSchema(json, 0, edges);
}

/** Values at every documented limit and one past it (see fromSchema), for a share of the cases. */
export const atLimits = (schema: z.ZodType) => schemaArbitrary(schema, true);

/** Wrong-typed or hostile values to put where a valid one was. */
const hostile = fc.oneof(
  fc.constant(null),
  fc.constant(""),
  fc.constant("x".repeat(5000)),
  fc.constant(-1),
  fc.constant(1e308),
  fc.constant("1; drop table crm_objects"),
  fc.constant("<script>alert(1)</script>"),
  fc.constant("../../etc/passwd"),
  fc.constant("\u0000\uffff\ud800"),
  fc.constant([]),
  fc.constant({}),
  fc.boolean(),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
) as fc.Arbitrary<Json>;

function replaceAt(value: Json, path: number[], replacement: Json | undefined): Json {
  if (path.length === 0 || value === null || typeof value !== "object") return replacement ?? null;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  if (entries.length === 0) return replacement ?? null;
  const idx = path[0]! % entries.length;
  const [key, child] = entries[idx]!;
  const next = path.length === 1 ? replacement : replaceAt(child, path.slice(1), replacement);
  if (Array.isArray(value)) {
    const copy = [...value];
    if (next === undefined) copy.splice(Number(key), 1);
    else copy[Number(key)] = next;
    return copy;
  }
  const copy: Record<string, Json> = { ...value };
  if (next === undefined) delete copy[key];
  else copy[key] = next;
  return copy;
}

/** A near-valid value with one part removed or replaced by a hostile one; sometimes a valid one. */
export function mutated(valid: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 1, arbitrary: valid },
    {
      weight: 4,
      arbitrary: fc
        .tuple(valid, fc.array(fc.nat(50), { minLength: 1, maxLength: 3 }), fc.option(hostile, { nil: undefined }))
        .map(([v, path, rep]) => replaceAt(v, path, rep)),
    },
    { weight: 1, arbitrary: hostile },
  );
}

/** Query values travel as strings; arrays become repeated keys. */
export function toQuery(value: Json): string {
  const params = new URLSearchParams();
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      for (const item of Array.isArray(v) ? v : [v]) params.append(k, typeof item === "string" ? item : JSON.stringify(item));
    }
  }
  return params.toString();
}
