// @ts-check
/**
 * @module The record page's forms: a date and time typed into a form is meant in the reader's time zone,
 * so its IANA name goes with the form (`tz`); without this script the server reads such times as UTC.
 */

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (zone) {
  for (const el of document.querySelectorAll("input[data-time-zone]")) /** @type {HTMLInputElement} */ (el).value = zone;
}
