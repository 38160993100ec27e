/**
 * @module What an integrator's data-fetch answer may contain, as zod schemas, and its reduction to what
 * the service shows. Pure: no I/O. The answer is untrusted input (OWASP API10, unsafe consumption of
 * APIs): links must be http(s), only properties the record type defines are passed
 * through, results are capped at five, and an action is dropped when malformed or when its URI is not
 * under the record type's baseUris.
 */
import { z } from "zod";
import { PROPERTY_DATA_TYPES, STATUS_OPTION_TYPES, type StoredPropertyDefinition } from "../../db/tables/cards";

/** Card items shown per data fetch, at most. */
export const MAX_RESULTS = 5;
export const HTTP_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH"] as const;

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}

/** A link shown to CRM users: http(s) only, so no `javascript:` or `data:` URL reaches a page. */
const httpUrl = z.string().max(2000).refine(isHttpUrl, "must be an absolute http(s) URL");
const propertyName = z.string().min(1).max(100);
const scalar = z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]);

/**
 * An action as the integrator returns it. `forDisplay` (the data-fetch output) requires the
 * label users see and the confirmation text; an action posted back to the actions endpoint needs neither,
 * but carries `extra` fields (its actionToken, see postedActionSchema).
 */
export function actionSchema<E extends z.ZodRawShape = Record<never, never>>(forDisplay: boolean, extra?: E) {
  const label = forDisplay ? z.string().min(1).max(200) : z.string().max(200).optional();
  const common = {
    label,
    uri: z.string().min(1).max(2000),
    associatedObjectProperties: z.array(propertyName).max(50).default([]),
    ...(extra as E),
  };
  const httpMethod = z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(HTTP_METHODS, { error: `httpMethod must be one of ${HTTP_METHODS.join(", ")}` }));
  const size = z.number().int().min(1).max(10_000);
  return z.discriminatedUnion(
    "type",
    [
      z.object({ type: z.literal("IFRAME"), ...common, width: size, height: size }),
      z.object({ type: z.literal("ACTION_HOOK"), ...common, httpMethod }),
      z.object({
        type: z.literal("CONFIRMATION_ACTION_HOOK"),
        ...common,
        httpMethod,
        confirmationMessage: forDisplay ? z.string().min(1).max(1000) : z.string().max(1000).optional(),
        // The button texts default to OK and Cancel, filled in so the page needs no defaults of its own.
        confirmButtonText: z.string().min(1).max(100).default("OK"),
        cancelButtonText: z.string().min(1).max(100).default("Cancel"),
      }),
    ],
    { error: "type must be one of IFRAME, ACTION_HOOK, CONFIRMATION_ACTION_HOOK" },
  );
}
const displayAction = actionSchema(true);
export type Action = z.output<ReturnType<typeof actionSchema>>;

/**
 * An action posted back to run it: the action object as the card view showed it, including the
 * `actionToken` the service attached (src/services/cards/action-token.ts). Labels and confirmation texts are not needed.
 */
export const postedActionSchema = actionSchema(false, {
  actionToken: z
    .string({ error: "actionToken is required: post the action back as the card view returned it, with its actionToken" })
    .min(1)
    .max(200)
    .meta({ description: "The actionToken the card view attached to this action; the action runs only if it matches." }),
});
export type PostedAction = z.output<typeof postedActionSchema>;

/** A query name as lenient parsers see it: case-folded, `name[...]` (PHP, qs) folded to `name`. */
const foldName = (name: string) => name.replace(/\[.*$/s, "").toLowerCase();

/** Form decoding of one query component (`+` is a space), as servers read it; a bad escape stays as is. */
function decodeComponent(raw: string): string {
  const spaced = raw.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** The decoded pairs of a query string, split on `&` and on `;` (which some older parsers also accept). */
function queryPairs(search: string): [string, string][] {
  return search
    .replace(/^\?/, "")
    .split(/[&;]/)
    .filter((pair) => pair !== "")
    .map((pair) => {
      const at = pair.indexOf("=");
      return at < 0 ? [decodeComponent(pair), ""] : [decodeComponent(pair.slice(0, at)), decodeComponent(pair.slice(at + 1))];
    });
}

/**
 * The first query parameter of `uri` that the service also appends (`appended`, the pairs it adds after
 * the uri's own query) with another value, or undefined. Most frameworks read the first of two equal
 * names, so `?portalId=<other account>` in an action uri would reach the integrator as the portal of a
 * validly signed request (audit finding; defence in depth behind the action token). Integrators do put
 * the portalId, userId or record id they received into their action URLs: the same value twice is
 * harmless and allowed. Names are compared as lenient parsers read them (case, `name[]`, `%xx`, `;`).
 */
export function conflictingQueryParam(uri: string, appended: readonly (readonly [string, string])[]): string | undefined {
  let search: string;
  try {
    search = new URL(uri).search;
  } catch {
    return undefined; // not a URL: refused by the baseUris rule
  }
  const values = new Map<string, Set<string>>();
  for (const [k, v] of appended) values.set(foldName(k), (values.get(foldName(k)) ?? new Set()).add(v));
  const clash = queryPairs(search).find(([name, value]) => {
    const theirs = values.get(foldName(name));
    return theirs !== undefined && !(theirs.size === 1 && theirs.has(value));
  });
  return clash?.[0];
}

/** An item-specific property, shown after the ones the record type defines. */
const itemProperty = z
  .object({
    label: z.string().max(200),
    dataType: z.enum(PROPERTY_DATA_TYPES),
    value: scalar,
    currencyCode: z.string().regex(/^[A-Z]{3}$/, "currencyCode must be an ISO 4217 code").optional(),
    linkLabel: z.string().max(200).optional(),
    optionType: z.enum(STATUS_OPTION_TYPES).optional(),
  })
  .superRefine((p, ctx) => {
    if (p.dataType === "CURRENCY" && !p.currencyCode) ctx.addIssue({ code: "custom", path: ["currencyCode"], message: "a CURRENCY property needs a currencyCode" });
    if (p.dataType === "LINK" && typeof p.value === "string" && !isHttpUrl(p.value)) {
      ctx.addIssue({ code: "custom", path: ["value"], message: "a LINK value must be an absolute http(s) URL" });
    }
  });

/** The value of a property the record type defines: a scalar, or `{value, currencyCode}` for currencies. */
function definedValue(def: StoredPropertyDefinition) {
  const boxed = z.object({
    value: scalar,
    currencyCode: z.string().regex(/^[A-Z]{3}$/, "currencyCode must be an ISO 4217 code").optional(),
    linkLabel: z.string().max(200).optional(),
  });
  const shape = z.union([scalar, boxed]);
  if (def.dataType !== "LINK") return shape;
  return shape.refine((v) => {
    const raw = v !== null && typeof v === "object" ? v.value : v;
    return typeof raw !== "string" || isHttpUrl(raw);
  }, "a LINK value must be an absolute http(s) URL");
}

const resultItem = z.looseObject({
  // objectId is an integer; integrators that echo associatedObjectId send it as a numeric string.
  objectId: z.union([z.number().int(), z.string().regex(/^\d{1,15}$/, "objectId must be an integer").transform(Number)]),
  title: z.string().max(1000),
  link: httpUrl.nullable().optional(),
  properties: z.array(itemProperty).max(50).optional(),
  actions: z.array(z.unknown()).max(25).optional(),
});

const response = z.object({
  results: z.array(z.unknown(), { error: "results must be an array" }),
  totalCount: z.number().int().min(0).optional(),
  allItemsLink: httpUrl.optional(),
  itemLabel: z.string().max(200).optional(),
  settingsAction: z.unknown().optional(),
  primaryAction: z.unknown().optional(),
  secondaryActions: z.array(z.unknown()).max(25).optional(),
});

/** Whether `uri` lies under one of `bases`: same origin, and the path equal to or below a base path at a `/` boundary. */
export function underBaseUris(uri: string, bases: readonly string[]): boolean {
  let target: URL;
  try {
    target = new URL(uri);
  } catch {
    return false;
  }
  if (target.username || target.password) return false;
  return bases.some((raw) => {
    const base = new URL(raw);
    if (base.origin !== target.origin) return false;
    const prefix = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
    return target.pathname === base.pathname || target.pathname.startsWith(prefix);
  });
}

/** `path: message` of the first zod issue, for a card's readable error. */
export function describeIssue(error: z.ZodError, prefix = ""): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}

interface CardConfig {
  baseUris: string[];
  propertyDefinitions: StoredPropertyDefinition[];
  title: string;
  /** The query parameter of the action's uri that contradicts what the service appends for this viewer, if any. */
  queryConflict?: (action: Action) => string | undefined;
}

/** One shown item: its id, title, link, defined properties and own `properties`, and its actions. */
export type CardItem = Record<string, unknown> & { actions: Action[] };

export type CardBody = {
  results: CardItem[];
  totalCount?: number;
  allItemsLink?: string;
  itemLabel: string;
  settingsAction?: Action;
  primaryAction?: Action;
  secondaryActions?: Action[];
  /** Why actions were dropped, for the integrator's developer. */
  warnings?: string[];
};

export type Parsed = { ok: true; body: CardBody } | { ok: false; error: string };

/** Validates a data-fetch answer and reduces it to what the card shows; a failure is a value, not a throw. */
export function parseCardResponse(text: string, card: CardConfig): Parsed {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: "The integrator's response is not valid JSON" };
  }
  const top = response.safeParse(raw);
  if (!top.success) return { ok: false, error: `The integrator's response does not match the data-fetch format: ${describeIssue(top.error)}` };

  const warnings: string[] = [];
  const keepAction = (value: unknown, where: string, onlyIframe = false): Action | undefined => {
    const parsed = displayAction.safeParse(value);
    if (!parsed.success) {
      warnings.push(`${where} dropped: ${describeIssue(parsed.error)}`);
      return undefined;
    }
    if (onlyIframe && parsed.data.type !== "IFRAME") {
      warnings.push(`${where} dropped: a settingsAction must be an IFRAME action`);
      return undefined;
    }
    if (!underBaseUris(parsed.data.uri, card.baseUris)) {
      warnings.push(`${where} dropped: its uri is not under the record type's baseUris`);
      return undefined;
    }
    const clash = card.queryConflict?.(parsed.data);
    if (clash !== undefined) {
      // It could not run (the actions endpoint refuses it too), so it is not shown.
      warnings.push(`${where} dropped: its uri's query gives ${clash} another value than the service sends when it calls the action`);
      return undefined;
    }
    return parsed.data;
  };
  const keepActions = (values: unknown[] | undefined, where: string) =>
    (values ?? []).flatMap((v, i) => keepAction(v, `${where}.${i}`) ?? []);

  const results: CardItem[] = [];
  for (const [i, value] of top.data.results.slice(0, MAX_RESULTS).entries()) {
    const item = resultItem.safeParse(value);
    if (!item.success) return { ok: false, error: `The integrator's response does not match the data-fetch format: ${describeIssue(item.error, `results.${i}`)}` };
    const out: Record<string, unknown> = { objectId: item.data.objectId, title: item.data.title, link: item.data.link ?? null };
    for (const def of card.propertyDefinitions) {
      const v = item.data[def.name];
      if (v === undefined) continue;
      const checked = definedValue(def).safeParse(v);
      if (!checked.success) return { ok: false, error: `The integrator's response does not match the data-fetch format: ${describeIssue(checked.error, `results.${i}.${def.name}`)}` };
      out[def.name] = checked.data;
    }
    if (item.data.properties) out.properties = item.data.properties;
    results.push({ ...out, actions: keepActions(item.data.actions, `results.${i}.actions`) });
  }

  const d = top.data;
  const body: CardBody = { results, itemLabel: d.itemLabel ?? card.title };
  // totalCount: how many items exist when there are more than the five shown; derived when the integrator sent more.
  const totalCount = d.totalCount ?? (d.results.length > MAX_RESULTS ? d.results.length : undefined);
  if (totalCount !== undefined) body.totalCount = totalCount;
  if (d.allItemsLink) body.allItemsLink = d.allItemsLink;
  const settings = d.settingsAction === undefined ? undefined : keepAction(d.settingsAction, "settingsAction", true);
  if (settings) body.settingsAction = settings;
  const primary = d.primaryAction === undefined ? undefined : keepAction(d.primaryAction, "primaryAction");
  if (primary) body.primaryAction = primary;
  if (d.secondaryActions) body.secondaryActions = keepActions(d.secondaryActions, "secondaryActions");
  if (warnings.length) body.warnings = warnings;
  return { ok: true, body };
}
