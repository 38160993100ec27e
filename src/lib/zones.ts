/**
 * @module Time zones and currencies as the runtime's Intl knows them, so that an account's settings are
 * checked and its UTC offset computed without a data file of our own: the offset follows daylight saving
 * as the zone's rules say at the moment asked.
 */

/** Whether `tz` is a time zone name Intl accepts (IANA names and their links, `US/Eastern` included). */
export function isTimeZone(tz: string): boolean {
  if (tz.length === 0 || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `at`: `-05:00` and its milliseconds, as `/account-info/v3/details` answers it. */
export function utcOffset(tz: string, at: number): { utcOffset: string; utcOffsetMilliseconds: number } {
  // longOffset names the offset as `GMT-05:00`, or `GMT` for zero.
  const part = new Intl.DateTimeFormat("en-US", { timeZone: tz, timeZoneName: "longOffset" }).formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(part);
  if (!m) return { utcOffset: "+00:00", utcOffsetMilliseconds: 0 };
  const sign = m[1] === "-" ? -1 : 1;
  const ms = sign * (Number(m[2]) * 60 + Number(m[3])) * 60_000;
  return { utcOffset: `${m[1]}${m[2]}:${m[3]}`, utcOffsetMilliseconds: ms };
}

let currencies: Set<string> | null = null;

/** Whether `code` is an ISO 4217 currency code the runtime knows (`USD`, `EUR`, …). */
export function isCurrency(code: string): boolean {
  if (!/^[A-Z]{3}$/.test(code)) return false;
  currencies ??= new Set(Intl.supportedValuesOf("currency"));
  return currencies.has(code);
}
