/**
 * @module ISO 8601 UTC times (`2026-11-25T20:50:12.345Z`) for the per-record fields of CRM v3 answers:
 * a page of 100 records formats 200 of them, and `Date#toISOString` on each would be most of the page's
 * presentation time. Each day's date part is formatted once (by `toISOString` itself) and kept; the time of day is
 * plain arithmetic. Out of the years 1970–9999 it is `toISOString` as is.
 */
const DAY_MS = 86_400_000;
const MAX_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
const MAX_DAYS = 4096;
const days = new Map<number, string>();

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** `new Date(ms).toISOString()`, faster for times of this era. */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_MS) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  let date = days.get(day);
  if (date === undefined) {
    if (days.size >= MAX_DAYS) days.clear();
    date = new Date(day * DAY_MS).toISOString().slice(0, 11); // "YYYY-MM-DDT"
    days.set(day, date);
  }
  let rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  return `${date}${two(h)}:${two(m)}:${two(s)}.${three(rest - s * 1000)}Z`;
}
