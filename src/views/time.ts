/**
 * @module Dates in the web app as people read them: `Nov 23, 2026, 5:57 PM UTC`, with the
 * exact ISO value in `datetime` and on hover (`title`). app.js rewrites the text in the reader's own time
 * zone and locale; without it the page still reads correctly in UTC.
 */

import { memo } from "../lib/memo";

const FORMAT = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/**
 * FORMAT's text by minute (it shows no seconds), remembered: a pure function of the instant, and `format`
 * costs about as much as the rest of an entry (a page of 50 activities formats 50 dates on every view).
 * Bounded: forgotten all at once when full.
 */
const formatted = memo<number, string>(10_000);
const shown = (d: Date): string => formatted.through(Math.floor(d.getTime() / 60_000), () => FORMAT.format(d));

/** A `<time>` for an instant in epoch ms; "" for an invalid one. `exact` is what the hover shows (default: the ISO value). */
export function timeTag(ms: number, exact?: string): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "";
  const iso = d.toISOString();
  const title = exact === undefined ? iso : exact.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<time datetime="${iso}" title="${title}" data-local>${shown(d)} UTC</time>`;
}

/** timeTag of a value stored as epoch ms (`digits`), its hover the ISO value and the value as stored. */
export function epochTimeTag(ms: number, digits: string): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "";
  const iso = d.toISOString();
  return `<time datetime="${iso}" title="${iso} (${digits})" data-local>${shown(d)} UTC</time>`;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
/** Epoch milliseconds between 2001 and 2286: 13 digits. Shorter numbers are not read as dates. */
const EPOCH_MS = /^\d{13}$/;
/** Properties that hold instants as epoch ms (v3 defaults, the ecommerce DATETIME mappings' usual targets). */
const DATE_NAME = /(^|_)(date|createdate|closedate|lastmodifieddate)$|date$|_at$/i;

/**
 * A record property's value as HTML: an ISO 8601 instant, or epoch ms in a property whose name says it
 * is a date (`closedate`, `createdate`, `*_at`), becomes a `<time>`; everything else is escaped text.
 */
export function propertyValueHtml(name: string, value: string, escape: (s: string) => string): string {
  if (ISO_INSTANT.test(value)) return timeTag(Date.parse(value), value) || escape(value);
  if (EPOCH_MS.test(value) && DATE_NAME.test(name)) return epochTimeTag(Number(value), value) || escape(value);
  return escape(value);
}
