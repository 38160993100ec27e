/**
 * @module What an integrator's data-fetch answer may contain (spec 2.10–2.12; reference §5.3), as zod
 * schemas, and its reduction to what the service shows. Pure: no I/O. The answer is untrusted input
 * (platform §5.3 API10): links must be http(s), only properties the record type defines are passed
 * through, results are capped at five, and an action is dropped when malformed or when its URI is not
 * under the record type's baseUris.
 */
import { z } from "zod";
import { PROPERTY_DATA_TYPES, STATUS_OPTION_TYPES, type StoredPropertyDefinition } from "../db/tables/cards";

/** spec 2.12 and 8: card items shown per data fetch. */
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
 * An action as the integrator returns it (spec 2.11). `forDisplay` (the data-fetch output) requires the
 * label users see and the confirmation text; an action posted back to the actions endpoint needs neither.
 */
export function actionSchema(forDisplay: boolean) {
  const label = forDisplay ? z.string().min(1).max(200) : z.string().max(200).optional();
  const common = {
    label,
    uri: z.string().min(1).max(2000),
    associatedObjectProperties: z.array(propertyName).max(50).default([]),
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
        // spec 2.11: defaults OK and Cancel, filled in so the page needs no defaults of its own.
        confirmButtonText: z.string().min(1).max(100).default("OK"),
        cancelButtonText: z.string().min(1).max(100).default("Cancel"),
      }),
    ],
    { error: "type must be one of IFRAME, ACTION_HOOK, CONFIRMATION_ACTION_HOOK" },
  );
}
const displayAction = actionSchema(true);
export type Action = z.output<ReturnType<typeof actionSchema>>;

/** spec 2.10: an item-specific property. */
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
  // spec 2.10 says integer; integrators that echo associatedObjectId send it as a numeric string.
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
}

export type CardBody = {
  results: Record<string, unknown>[];
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
      warnings.push(`${where} dropped: a settingsAction must be an IFRAME action`); // spec 2.12
      return undefined;
    }
    if (!underBaseUris(parsed.data.uri, card.baseUris)) {
      warnings.push(`${where} dropped: its uri is not under the record type's baseUris`); // spec 2.9
      return undefined;
    }
    return parsed.data;
  };
  const keepActions = (values: unknown[] | undefined, where: string) =>
    (values ?? []).flatMap((v, i) => keepAction(v, `${where}.${i}`) ?? []);

  const results: Record<string, unknown>[] = [];
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
    out.actions = keepActions(item.data.actions, `results.${i}.actions`);
    results.push(out);
  }

  const d = top.data;
  const body: CardBody = { results, itemLabel: d.itemLabel ?? card.title };
  // spec 2.12: totalCount tells how many exist beyond the five shown; derived when the integrator sent more.
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
