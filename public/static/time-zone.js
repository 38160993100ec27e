// @ts-check
/**
 * @module The record page's forms: a date and time typed into a form is meant in the reader's time zone,
 * so its IANA name goes with the form (`tz`); without this script the server reads such times in the zone
 * the form was shown in (UTC for a new activity, the account's for an edited one). An edited activity's time
 * fields carry their instant (`data-instant`): they are shown again in the reader's zone, so the form posts
 * the same instant back when the time is not changed.
 */

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
/** @param {number} n */
const two = (n) => String(n).padStart(2, "0");
if (zone) {
  for (const el of document.querySelectorAll("input[data-time-zone]")) /** @type {HTMLInputElement} */ (el).value = zone;
  for (const el of document.querySelectorAll("input[data-instant]")) {
    const input = /** @type {HTMLInputElement} */ (el);
    const at = new Date(input.dataset.instant ?? "");
    if (Number.isNaN(at.getTime())) continue;
    input.value = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}T${two(at.getHours())}:${two(at.getMinutes())}`;
  }
}
