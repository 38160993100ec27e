/**
 * @module A record's property values as people read them on the record page (docs/reference/web.md "Record
 * page"), by the property's definition: an enumeration by its options' labels, a bool as Yes or No, money
 * in its currency, a date as a date, a datetime in the account's time zone, an owner by name, a pipeline and
 * a stage by label. The stored value stays in the Details view. Every function returns escaped HTML.
 */
import { memo } from "../lib/memo";
import { escapeHtml } from "../lib/html";
import type { PropertyDef } from "../services/crm/properties";
import type { StageName } from "../services/pipelines/read";
import type { AccountFormat } from "../services/web/properties";
import { formatAmount } from "./deal-values";

const e = escapeHtml;

export interface ValueContext {
  account: AccountFormat;
  /** The record's own currency (a deal's `deal_currency_code`), which wins over the account's. */
  currency?: string;
  owners: Map<string, string>;
  stages?: Map<string, StageName>;
}

/** Properties that hold money: shown in the record's currency, else the account's. */
const MONEY = new Set(["amount", "price", "hs_acv", "hs_arr", "hs_mrr", "hs_tcv", "amount_in_home_currency"]);
const PIPELINE = new Set(["pipeline", "hs_pipeline"]);
const STAGE = new Set(["dealstage", "hs_pipeline_stage"]);

/** A stored instant: epoch milliseconds or an ISO 8601 date or date-time; null when it is neither. */
export function instantOf(value: string): number | null {
  if (/^-?\d{1,15}$/.test(value)) return Number(value);
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) return null;
  // A bare date is a day in UTC (the real service stores a date property as midnight UTC).
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(ms) ? null : ms;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();
function formatIn(timeZone: string, withTime: boolean): Intl.DateTimeFormat {
  const key = `${timeZone}|${withTime}`;
  let f = dateFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", withTime
        ? { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZone, timeZoneName: "short" }
        : { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
    dateFormats.set(key, f);
  }
  return f;
}

/** A date property: the day it names (in UTC: a date has no time of day, so no zone moves it). */
export function dateText(value: string): string | null {
  const ms = instantOf(value);
  return ms === null ? null : formatIn("UTC", false).format(ms);
}

/** A datetime property: the instant in the account's time zone, with the zone's abbreviation. */
export function dateTimeText(value: string, timeZone: string): string | null {
  const ms = instantOf(value);
  return ms === null ? null : zonedText(timeZone, ms);
}

/**
 * The text of an instant in a zone, remembered: a pure function of both, and a zone's format costs more
 * than the rest of a value (a record page shows its create and modify dates on every view). By the exact
 * instant, not the minute shown: a zone's historical offset may not be whole minutes. Bounded: forgotten
 * all at once when full.
 */
const instantTexts = memo<string, string>(10_000);
const zonedText = (timeZone: string, ms: number): string => instantTexts.through(`${timeZone}|${ms}`, () => formatIn(timeZone, true).format(ms));

const optionLabel = (d: PropertyDef, value: string) => d.options.find((o) => o.value === value)?.label ?? value;

/** The value as text people read (not yet escaped); the stored value itself when nothing better is known. */
export function valueText(d: PropertyDef, value: string, c: ValueContext): string {
  if (d.name === "hubspot_owner_id") return c.owners.get(value) ?? optionLabel(d, value);
  if (STAGE.has(d.name)) return c.stages?.get(value)?.stage ?? optionLabel(d, value);
  if (PIPELINE.has(d.name)) return [...(c.stages?.values() ?? [])].find((s) => s.pipelineId === value)?.pipeline ?? optionLabel(d, value);
  if (d.type === "enumeration") {
    // A multi-select (checkbox) holds its values separated by `;`.
    return d.fieldType === "checkbox" ? value.split(";").filter(Boolean).map((v) => optionLabel(d, v)).join(", ") : optionLabel(d, value);
  }
  if (d.type === "bool") return value === "true" ? "Yes" : value === "false" ? "No" : value;
  if (d.type === "date") return dateText(value) ?? value;
  if (d.type === "datetime") return dateTimeText(value, c.account.timeZone) ?? value;
  if (d.type === "number") {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n)) return value;
    if (MONEY.has(d.name)) return formatAmount(value, c.currency || c.account.currency);
    // Ids are numbers people read digit by digit: no grouping.
    if (d.name.endsWith("_id")) return value;
    return n.toLocaleString("en-US", { maximumFractionDigits: 20 });
  }
  return value;
}

/** The value as HTML: a datetime keeps its exact instant in `datetime`. */
export function valueHtml(d: PropertyDef, value: string, c: ValueContext): string {
  const text = e(valueText(d, value, c));
  if (d.type === "date" || d.type === "datetime") {
    const ms = instantOf(value);
    if (ms !== null) return `<time datetime="${new Date(ms).toISOString()}">${text}</time>`;
  }
  if (d.fieldType === "textarea") return `<span class="multiline">${text}</span>`;
  return text;
}
