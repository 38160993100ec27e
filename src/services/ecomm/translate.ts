/**
 * @module Translation of a sync message's external properties through the property mappings, the first
 * step of applying it. Pure: unmapped external properties are ignored, values are coerced per dataType, and the
 * v1 association properties (`hs_assoc__*`) are set apart because they name objects, not values.
 */
import type { PropertyMapping } from "../../db/tables/ecomm";
import type { SyncErrorType } from "../../schemas/ecomm";

export type RawValue = string | number | boolean | null;

/** An expected failure of one message: recorded as a sync error, never thrown. */
export interface SyncFailure {
  type: SyncErrorType;
  details: string;
}

export interface Translated {
  /** CRM property name -> value; null clears the property. */
  patch: Record<string, string | null>;
  /** `hs_assoc__*` property -> value. */
  assoc: Record<string, string | null>;
}

const isFailure = (x: string | null | SyncFailure): x is SyncFailure => typeof x === "object" && x !== null;

/** Coerces one value; an empty string or null clears the property (as on the CRM objects API). */
export function coerce(m: PropertyMapping, value: RawValue): string | null | SyncFailure {
  if (value === null || value === "") return null;
  switch (m.dataType) {
    case "STRING":
    case "AVATAR_IMAGE":
      return String(value);
    case "NUMBER": {
      const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value.trim()) : NaN;
      if (!Number.isFinite(n)) {
        return { type: "ERROR_INVALID_NUMBER_PROPERTY", details: `Property ${m.externalPropertyName} (mapped to ${m.servicePropertyName}) is not a number: ${JSON.stringify(value)}` };
      }
      return String(n);
    }
    case "DATETIME": {
      // Epoch milliseconds as a number or numeric string, or an ISO 8601 date; stored as an epoch ms string.
      let ms = NaN;
      if (typeof value === "number") ms = value;
      else if (typeof value === "string" && /^-?\d{1,16}$/.test(value.trim())) ms = Number(value.trim());
      else if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value.trim())) ms = Date.parse(value.trim());
      if (!Number.isSafeInteger(ms)) {
        return { type: "ERROR_INVALID_DATE_PROPERTY", details: `Property ${m.externalPropertyName} (mapped to ${m.servicePropertyName}) is not a date: ${JSON.stringify(value)}` };
      }
      return String(ms);
    }
  }
}

export function translate(mappings: readonly PropertyMapping[], properties: Record<string, RawValue>): Translated | SyncFailure {
  const byExternal = new Map(mappings.map((m) => [m.externalPropertyName, m]));
  const out: Translated = { patch: {}, assoc: {} };
  for (const [name, value] of Object.entries(properties)) {
    const m = byExternal.get(name);
    if (!m) continue; // only mapped properties are synced
    const v = coerce(m, value);
    if (isFailure(v)) return v;
    if (m.servicePropertyName.startsWith("hs_assoc__")) out.assoc[m.servicePropertyName] = v;
    else out.patch[m.servicePropertyName] = v;
  }
  return out;
}

/** A deliberately plain check: one @, no spaces, a dot in the domain (only contacts with a valid email are created). */
export const isValidEmail = (email: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && email.length <= 254;

/** External ids listed in a v1 association property ("a,b;c"). */
export const splitIds = (value: string | null | undefined) =>
  (value ?? "")
    .split(/[,;]/)
    .map((s) => s.trim())
    .filter(Boolean);
