/**
 * @module Checks of the values a record write carries, run before anything is written (create, update,
 * batch create, update and upsert). Most properties take any string, as the real service takes any value
 * of a text property; the properties with a closed set of values are checked, as the real service checks
 * them: an enumeration's fixed options, and the properties whose options are the account's own data
 * (owners, pipelines and stages), each by its own check below. A failure is one 400 naming every bad
 * field (`context.propertyName`) and the allowed values, and nothing is written.
 *
 * The same sources answer the options the properties API lists (`withLiveOptions`), so what a read says is
 * allowed is what a write accepts.
 */
import type { Db } from "../../db/client";
import { ACTIVITY_TYPES, type ObjectType, type PropertyOption } from "../../db/tables/crm";
import { badRequest, type ErrorDetail } from "../../lib/errors";
import { builtInDefinition, builtInNames, type PropertyDef } from "./properties";
import { liveOwners, ownerOptions } from "../owners/owners";
import { coversPipelineProperty, pipelineOptions, pipelineValueErrors } from "../pipelines/values";
import { throwUniqueErrors, uniqueValueErrors } from "./unique";

/** The databases a check may read: the account's shard and the control plane (users live there). */
export interface ValueSource {
  db: Db;
  control: Db;
}

/**
 * One record's written properties; `at` prefixes field names in errors (`inputs.3.`); `id` is set on updates,
 * `key` on updates naming their record by a unique property, `create` on creates (the unique-value check
 * runs on writes that say which record they are: src/services/crm/unique.ts).
 */
export interface WrittenValues {
  properties: Record<string, string>;
  at: string;
  id?: number;
  key?: { name: string; value: string };
  create?: boolean;
}

/** A check of one concern: the errors of the writes it finds wrong (none: an empty list). */
export type ValueCheck = (src: ValueSource, portalId: number, type: ObjectType, writes: WrittenValues[]) => Promise<ErrorDetail[]> | ErrorDetail[];

/** The options of the properties whose values are the account's data (`hubspot_owner_id`, `dealstage`, …). */
export interface OptionSource {
  covers: (type: ObjectType, name: string) => boolean;
  options: (src: ValueSource, portalId: number, type: ObjectType, name: string) => Promise<PropertyOption[]>;
}

/** The error detail of one bad value, in the shape every check uses. */
export function invalidValue(at: string, name: string, value: string, allowed: string[], code = "INVALID_OPTION"): ErrorDetail {
  const shown = allowed.length > 20 ? `${allowed.slice(0, 20).join(", ")}, …` : allowed.join(", ");
  return {
    message: `${JSON.stringify(value)} was not one of the allowed options for ${name}: ${shown || "(none)"}`,
    code,
    in: "body",
    context: { propertyName: [`${at}properties.${name}`] },
  };
}

/**
 * Built-in enumerations with fixed options (`hs_task_status`, `hs_call_direction`, …): the value must be
 * one of them. An empty string clears the property and is always allowed, as on the real service.
 */
const fixedOptions: ValueCheck = (_src, _portalId, type, writes) => {
  const errors: ErrorDetail[] = [];
  for (const w of writes) {
    for (const [name, value] of Object.entries(w.properties)) {
      if (value === "") continue;
      const def = builtInDefinition(type, name);
      if (!def || def.type !== "enumeration" || def.options.length === 0) continue;
      if (!def.options.some((o) => o.value === value)) errors.push(invalidValue(w.at, name, value, def.options.map((o) => o.value)));
    }
  }
  return errors;
};

/** An activity is created with its time (`hs_timestamp`), which the real service requires: it orders the timeline. */
const missingTime = (type: ObjectType, properties: Record<string, string>, at: string): ErrorDetail | null =>
  (ACTIVITY_TYPES as readonly string[]).includes(type) && !properties.hs_timestamp
    ? { message: `hs_timestamp is required to create ${type}`, code: "REQUIRED_FIELD", in: "body", context: { propertyName: [`${at}properties.hs_timestamp`] } }
    : null;

/**
 * Creates only: a write with an id updates, and an upsert (a write with a `key`) may update a record that
 * has its time; an upsert that creates is checked when it is known to create (`requireActivityTime`).
 */
const activityTime: ValueCheck = (_src, _portalId, type, writes) =>
  writes.filter((w) => w.id === undefined && !w.key).flatMap((w) => missingTime(type, w.properties, w.at) ?? []);

/** The 400 of an activity an upsert creates without its time. */
export function requireActivityTime(type: ObjectType, properties: Record<string, string>, at: string): void {
  const error = missingTime(type, properties, at);
  if (error) throw badRequest(`Property values were not valid: ${at}properties.hs_timestamp`, { errors: [error] });
}

/**
 * `hubspot_owner_id` names a live owner of the account (docs/reference/owners.md), on every type that has the
 * property: an unknown id, another account's and an archived owner's are a 400, as on the real service.
 */
const OWNER = "hubspot_owner_id";
const ownerIds: ValueCheck = async (src, portalId, type, writes) => {
  if (!builtInDefinition(type, OWNER)) return [];
  const named = writes.flatMap((w) => (w.properties[OWNER] ? [{ w, value: w.properties[OWNER] }] : []));
  if (named.length === 0) return [];
  const ids = named.filter((n) => /^\d{1,15}$/.test(n.value)).map((n) => Number(n.value));
  const live = new Set((await liveOwners(src.control, portalId, ids)).map((o) => String(o.ownerId)));
  return named
    .filter((n) => !live.has(n.value))
    .map(({ w, value }) => ({
      message: `${JSON.stringify(value)} is not an owner of this account: hubspot_owner_id takes the id of a live owner (GET /crm/v3/owners)`,
      code: "INVALID_OPTION",
      in: "body",
      context: { propertyName: [`${w.at}properties.${OWNER}`] },
    }));
};

const CHECKS: ValueCheck[] = [fixedOptions, activityTime, ownerIds];

const OPTION_SOURCES: OptionSource[] = [
  { covers: (type, name) => name === OWNER && builtInDefinition(type, OWNER) !== undefined, options: (src, portalId) => ownerOptions(src.control, portalId) },
];

/** Runs every check over the writes; throws one 400 listing every bad value. */
export async function checkValues(src: ValueSource, portalId: number, type: ObjectType, writes: WrittenValues[]): Promise<void> {
  const errors: ErrorDetail[] = [];
  for (const check of CHECKS) errors.push(...(await check(src, portalId, type, writes)));
  // Values of unique properties last, once every value is allowed: its 400 names the record holding the value.
  if (errors.length === 0) throwUniqueErrors(await uniqueValueErrors(src.db, portalId, type, writes));
  if (errors.length === 0) return;
  const names = [...new Set(errors.flatMap((e) => (e.context?.propertyName as string[] | undefined) ?? []))];
  throw badRequest(`Property values were not valid: ${names.join(", ")}`, { errors });
}

/** The definitions as the properties API answers them: a property whose values are the account's data lists them as its options. */
export async function withLiveOptions(src: ValueSource, portalId: number, type: ObjectType, defs: PropertyDef[]): Promise<PropertyDef[]> {
  return withOptions(defs, await optionsOf(src, portalId, type, defs.map((d) => d.name)));
}

/** The live options of those of `names` whose values are the account's data, read at once. */
async function optionsOf(src: ValueSource, portalId: number, type: ObjectType, names: string[]): Promise<Map<string, PropertyOption[]>> {
  const covered = names.flatMap((name) => {
    const source = OPTION_SOURCES.find((o) => o.covers(type, name));
    return source ? [{ name, source }] : [];
  });
  return new Map(await Promise.all(covered.map(async ({ name, source }) => [name, await source.options(src, portalId, type, name)] as const)));
}

/**
 * The live options of every property of `type` whose values are the account's data, read without waiting
 * for the definitions: such properties are built-in, so their names are known from code. A page that reads
 * the definitions too runs both at once and joins them with `withOptions`.
 */
export const liveOptionsOf = (src: ValueSource, portalId: number, type: ObjectType): Promise<Map<string, PropertyOption[]>> =>
  optionsOf(src, portalId, type, builtInNames(type));

/** The definitions with the options `liveOptionsOf` read in place of their own. */
export const withOptions = (defs: PropertyDef[], options: Map<string, PropertyOption[]>): PropertyDef[] =>
  defs.map((d) => (options.has(d.name) ? { ...d, options: options.get(d.name)! } : d));

// Pipelines and stages of deals and tickets: their values are the account's pipelines (src/services/pipelines/values.ts).
CHECKS.push((src, portalId, type, writes) => pipelineValueErrors(src.db, portalId, type, writes, invalidValue));
OPTION_SOURCES.push({ covers: coversPipelineProperty, options: (src, portalId, type, name) => pipelineOptions(src.db, portalId, type, name) });
