/**
 * @module The web app's record forms, between what a browser posts and what the API stores
 * (docs/reference/web.md "Forms"). A field is named `p:<property>`; a multi-select's boxes `c:<property>:<n>`
 * beside a `p:<property>` that says the field was on the form (so unticking every box clears it). A date is
 * entered as `YYYY-MM-DD` and stored so; a datetime is entered as a wall-clock time in the account's time
 * zone and stored as the ISO 8601 instant, as the API answers datetimes. Only the form's own shapes are
 * checked here (a number that is not one, a date that is not a date); every rule of the values is the API's.
 */
import { utcOffset } from "../../lib/zones";
import type { PropertyDef } from "../crm/properties";
import { isEditable } from "./properties";

const FIELD = "p:";
const BOX = "c:";

/** A datetime-local value: `YYYY-MM-DDTHH:MM` (seconds optional). */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** An instant as stored (epoch ms, or ISO 8601 date or instant); null when it is neither. */
function storedInstant(value: string): number | null {
  if (/^-?\d{1,15}$/.test(value)) return Number(value);
  const ms = Date.parse(DAY.test(value) ? `${value}T00:00:00Z` : value);
  return /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(ms) ? ms : null;
}

/** The wall-clock time in `tz` of `ms`, as a datetime-local input shows it. */
function localOf(ms: number, tz: string): string {
  return new Date(ms + utcOffset(tz, ms).utcOffsetMilliseconds).toISOString().slice(0, 16);
}

/** The instant a wall-clock time in `tz` names (the offset is looked up at the guessed instant, then again). */
function instantOfLocal(local: string, tz: string): number | null {
  const m = LOCAL.exec(local);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const wall = Date.UTC(y!, mo! - 1, d!, h!, mi!, s || 0);
  const check = new Date(wall);
  if (check.getUTCMonth() !== mo! - 1 || check.getUTCDate() !== d! || h! > 23 || mi! > 59) return null;
  let at = wall - utcOffset(tz, wall).utcOffsetMilliseconds;
  at = wall - utcOffset(tz, at).utcOffsetMilliseconds;
  return at;
}

function validDay(v: string): boolean {
  const m = DAY.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** A stored value as the form's field shows it. */
export function inputOf(d: PropertyDef, stored: string | undefined, tz: string): string {
  if (stored === undefined) return "";
  if (d.type === "date") {
    const ms = storedInstant(stored);
    return ms === null ? stored : new Date(ms).toISOString().slice(0, 10);
  }
  if (d.type === "datetime") {
    const ms = storedInstant(stored);
    return ms === null ? stored : localOf(ms, tz);
  }
  return stored;
}

/** What the form's value stores, or the error to show beside the field. */
export function storedOf(d: PropertyDef, input: string, tz: string): { value: string } | { error: string } {
  // A browser sends a textarea's line breaks as CRLF: stored as LF, as the API's clients write them, so an
  // unchanged text compares equal to what is stored.
  const v = d.type === "string" || d.fieldType === "textarea" ? input.replace(/\r\n?/g, "\n") : input.trim();
  if (v === "") return { value: "" };
  if (d.type === "number") return Number.isFinite(Number(v)) ? { value: v } : { error: "Enter a number." };
  if (d.type === "date") return validDay(v) ? { value: v } : { error: "Enter a date as YYYY-MM-DD." };
  if (d.type === "datetime") {
    const ms = instantOfLocal(v, tz);
    return ms === null ? { error: "Enter a date and time as YYYY-MM-DDTHH:MM." } : { value: new Date(ms).toISOString() };
  }
  if (d.type === "bool" && v !== "true" && v !== "false") return { error: "Choose Yes or No." };
  return { value: v };
}

export interface PostedForm {
  /** The fields the form carried, by property name, as typed (what a re-shown form keeps). */
  inputs: Record<string, string>;
  /** Their stored values, for the fields that are well formed. */
  properties: Record<string, string>;
  /** Errors by property name; `""` for the form as a whole. */
  errors: Record<string, string>;
}

/**
 * Reads a posted form against the type's definitions. A field that names no property people may edit is
 * an error of the form (a 400 page), as is a property sent twice over.
 */
export function readForm(body: Record<string, string>, defs: PropertyDef[], tz: string): PostedForm {
  const editable = new Map(defs.filter(isEditable).map((d) => [d.name, d]));
  const out: PostedForm = { inputs: {}, properties: {}, errors: {} };
  const boxes = new Map<string, string[]>();
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith(BOX)) {
      const name = key.slice(BOX.length, key.lastIndexOf(":"));
      boxes.set(name, [...(boxes.get(name) ?? []), value]);
    } else if (key.startsWith(FIELD)) {
      out.inputs[key.slice(FIELD.length)] = value;
    }
  }
  for (const [name, values] of boxes) {
    if (!(name in out.inputs)) continue;
    const d = editable.get(name);
    // In the order of the options, `;`-separated, as the API stores a multi-select.
    const chosen = d ? d.options.map((o) => o.value).filter((v) => values.includes(v)) : values;
    out.inputs[name] = chosen.join(";");
  }
  const unknown = Object.keys(out.inputs).filter((n) => !editable.has(n));
  if (unknown.length) out.errors[""] = `These fields cannot be edited here: ${unknown.slice(0, 5).join(", ")}.`;
  for (const [name, input] of Object.entries(out.inputs)) {
    const d = editable.get(name);
    if (!d) continue;
    const r = storedOf(d, input, tz);
    if ("error" in r) out.errors[name] = r.error;
    else out.properties[name] = r.value;
  }
  return out;
}

/** The fields of an update that change the record: unchanged ones are not written (no event, no rewrite of a stored format). */
export function changedOnly(properties: Record<string, string>, current: Record<string, string>, defs: PropertyDef[], tz: string): Record<string, string> {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(properties)) {
    const d = byName.get(name);
    const before = current[name];
    if (before === undefined ? value === "" : value === before) continue;
    // A date or datetime stored in another spelling of the same instant is unchanged.
    if (d && (d.type === "date" || d.type === "datetime") && before !== undefined && value !== "") {
      const r = storedOf(d, inputOf(d, before, tz), tz);
      if ("value" in r && r.value === value) continue;
    }
    out[name] = value;
  }
  return out;
}
