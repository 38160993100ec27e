/**
 * @module The record page's activity forms as the properties the v3 objects API takes (docs/reference/web.md,
 * "Working on a record"): a note, a task, a call and a meeting. The forms name their fields by the
 * properties they set (`hs_task_subject`), so an error the API's own checks raise (`properties.<name>`) is
 * shown next to its field; the fields that are not a property as such (a call's duration in minutes, the
 * browser's time zone) say which property they become.
 */
import { escapeHtml } from "../../lib/html";

export const FORM_KINDS = ["notes", "tasks", "calls", "meetings", "emails", "communications", "postal_mail"] as const;
export type FormKind = (typeof FORM_KINDS)[number];
export const isFormKind = (s: string): s is FormKind => (FORM_KINDS as readonly string[]).includes(s);

/** Every field of each form, by name. */
export const FORM_FIELDS: Record<FormKind, string[]> = {
  notes: ["hs_note_body"],
  tasks: ["hs_task_subject", "hs_timestamp", "hubspot_owner_id", "hs_task_priority"],
  calls: ["hs_call_title", "hs_call_direction", "duration", "hs_call_body"],
  meetings: ["hs_meeting_title", "hs_meeting_start_time", "hs_meeting_end_time"],
  emails: ["hs_email_subject", "hs_email_direction", "hs_email_text"],
  communications: ["hs_communication_channel_type", "hs_communication_body"],
  postal_mail: ["hs_postal_mail_body"],
};

/** The form field an API error's property is shown at (a property that is a field is shown at itself). */
export const FIELD_OF_PROPERTY: Record<FormKind, Record<string, string>> = {
  notes: {},
  tasks: {},
  calls: { hs_call_duration: "duration", hs_timestamp: "hs_call_title" },
  meetings: { hs_timestamp: "hs_meeting_start_time" },
  emails: { hs_email_html: "hs_email_text", hs_timestamp: "hs_email_subject" },
  communications: { hs_timestamp: "hs_communication_body" },
  postal_mail: { hs_timestamp: "hs_postal_mail_body" },
};

/** Bodies and titles are bounded here; the API's record size cap (1 MiB) is far above. */
const MAX_BODY = 65_536;
const MAX_TITLE = 500;
/** A call lasts at most a day here (minutes). */
const MAX_CALL_MINUTES = 24 * 60;

/**
 * A body typed as plain text, as HTML (the API stores bodies as HTML, as the real service does): escaped,
 * paragraphs at blank lines, line breaks kept.
 */
export function textToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .trim()
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, "<br>")}</p>`)
    .join("");
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** The offset (ms) of the time zone `tz` from UTC at the instant `t`. */
function offsetAt(t: number, tz: string): number {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" }).formatToParts(new Date(t));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second")) - (t - (t % 1000));
}

/**
 * A `datetime-local` value (`2026-11-05T14:30`) read in the time zone `tz` (the browser's IANA zone, set by
 * time-zone.js; UTC without script or for a zone this runtime does not know) as an ISO 8601 instant; null when
 * it is not such a value.
 */
export function localToInstant(value: string, tz: string | undefined): string | null {
  const m = LOCAL.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(wall);
  // Date.UTC rolls over (Feb 30 is Mar 2): such a value names no day.
  if (Number.isNaN(wall) || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  let zone = "UTC";
  try {
    if (tz) {
      new Intl.DateTimeFormat("en-US", { timeZone: tz });
      zone = tz;
    }
  } catch {
    zone = "UTC";
  }
  // Two steps find the instant whose wall time in the zone is `wall`, across a change of offset too.
  let t = wall - offsetAt(wall, zone);
  t = wall - offsetAt(t, zone);
  return new Date(t).toISOString();
}

export type ActivityInput = { ok: true; properties: Record<string, string> } | { ok: false; errors: Record<string, string> };

/**
 * The properties of a new activity from its form, or the errors by field. `now` is the account's time: a
 * note and a call are logged at it (their `hs_timestamp`, which the API requires of every activity).
 */
export function activityProperties(kind: FormKind, v: Record<string, string>, now: number): ActivityInput {
  const errors: Record<string, string> = {};
  const text = (name: string, label: string, max: number, required: boolean) => {
    // A browser sends a textarea's line breaks as CRLF; they are kept as LF.
    const value = (v[name] ?? "").replace(/\r\n?/g, "\n").trim();
    if (required && !value) errors[name] = `${label} is required.`;
    else if (value.length > max) errors[name] = `${label} is at most ${max} characters.`;
    return value;
  };
  const time = (name: string, label: string) => {
    const value = (v[name] ?? "").trim();
    if (!value) {
      errors[name] = `${label} is required.`;
      return "";
    }
    const at = localToInstant(value, v.tz);
    if (!at) errors[name] = `${label} must be a date and time (YYYY-MM-DDTHH:MM).`;
    return at ?? "";
  };
  const at = new Date(now).toISOString();
  let properties: Record<string, string> = {};
  switch (kind) {
    case "notes": {
      const body = text("hs_note_body", "The note", MAX_BODY, true);
      properties = { hs_note_body: textToHtml(body), hs_timestamp: at };
      break;
    }
    case "tasks": {
      properties = {
        hs_task_subject: text("hs_task_subject", "The subject", MAX_TITLE, true),
        hs_timestamp: time("hs_timestamp", "The due date"),
        hs_task_status: "NOT_STARTED",
        hs_task_type: "TODO",
      };
      // Owner and priority are checked by the API's own checks (a live owner of the account; an option).
      if (v.hubspot_owner_id) properties.hubspot_owner_id = v.hubspot_owner_id;
      if (v.hs_task_priority) properties.hs_task_priority = v.hs_task_priority;
      break;
    }
    case "calls": {
      properties = { hs_call_title: text("hs_call_title", "The title", MAX_TITLE, true), hs_timestamp: at, hs_call_status: "COMPLETED" };
      // The direction is an option the API checks; the duration is minutes here, milliseconds in the API.
      if (v.hs_call_direction) properties.hs_call_direction = v.hs_call_direction;
      const minutes = (v.duration ?? "").trim();
      if (minutes) {
        if (!/^\d{1,4}$/.test(minutes) || Number(minutes) > MAX_CALL_MINUTES) errors.duration = `The duration is a whole number of minutes, at most ${MAX_CALL_MINUTES}.`;
        else properties.hs_call_duration = String(Number(minutes) * 60_000);
      }
      const body = text("hs_call_body", "The notes", MAX_BODY, false);
      if (body) properties.hs_call_body = textToHtml(body);
      break;
    }
    case "meetings": {
      const start = time("hs_meeting_start_time", "The start");
      const end = time("hs_meeting_end_time", "The end");
      if (start && end && Date.parse(end) < Date.parse(start)) errors.hs_meeting_end_time = "The end is before the start.";
      properties = { hs_meeting_title: text("hs_meeting_title", "The title", MAX_TITLE, true), hs_meeting_start_time: start, hs_meeting_end_time: end, hs_timestamp: start, hs_meeting_outcome: "SCHEDULED" };
      break;
    }
    case "emails": {
      // A logged email keeps its text as typed and as HTML, as the real service's logged emails have both.
      const body = text("hs_email_text", "The email", MAX_BODY, false);
      properties = { hs_email_subject: text("hs_email_subject", "The subject", MAX_TITLE, true), hs_email_text: body, hs_email_html: body ? textToHtml(body) : "", hs_timestamp: at };
      // The direction is an option the API checks.
      if (v.hs_email_direction) properties.hs_email_direction = v.hs_email_direction;
      break;
    }
    case "communications": {
      // The channel is an option the API checks; the real service marks messages logged by hand as from the CRM.
      properties = { hs_communication_body: textToHtml(text("hs_communication_body", "The message", MAX_BODY, true)), hs_communication_logged_from: "CRM", hs_timestamp: at };
      if (v.hs_communication_channel_type) properties.hs_communication_channel_type = v.hs_communication_channel_type;
      break;
    }
    case "postal_mail":
      properties = { hs_postal_mail_body: textToHtml(text("hs_postal_mail_body", "The mail", MAX_BODY, true)), hs_timestamp: at };
      break;
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, properties };
}

/** An HTML body as the text its form shows: paragraphs as blank lines, `<br>` as a line break, tags dropped. */
export function htmlToText(html: string): string {
  return html
    .replace(/<\/p>\s*<p(?:\s[^>]*)?>/gi, "\n\n")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x?[0-9a-f]+|amp|lt|gt|quot|apos|nbsp);/gi, (_, ref: string) => {
      const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
      const r = ref.toLowerCase();
      if (named[r]) return named[r];
      const code = r.startsWith("#x") ? parseInt(r.slice(2), 16) : parseInt(r.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
    })
    .trim();
}

/** A stored instant (ISO 8601 or epoch milliseconds, as the API accepts both) in ms; null when it is neither. */
export function instantMs(value: string | undefined): number | null {
  if (!value) return null;
  const ms = /^\d{1,15}$/.test(value) ? Number(value) : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** The `datetime-local` value (`2026-11-05T14:30`) of the instant `ms` in the time zone `tz`. */
export function instantToLocal(ms: number, tz: string): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "00";
  return `${get("year")}-${get("month")}-${get("day")}T${get("hour")}:${get("minute")}`;
}

/** The form's fields that are times, and the property each shows. */
const TIME_FIELDS: Record<FormKind, string[]> = { notes: [], tasks: ["hs_timestamp"], calls: [], meetings: ["hs_meeting_start_time", "hs_meeting_end_time"], emails: [], communications: [], postal_mail: [] };
/** Bodies stored as HTML and edited as their text. */
const HTML_BODIES = ["hs_note_body", "hs_call_body", "hs_communication_body", "hs_postal_mail_body", "hs_email_html"];

/**
 * An activity's stored properties as its form's values, times in the time zone `tz` (the account's: the page
 * cannot know the reader's before its script runs, which then shows them in the reader's own, time-zone.js),
 * and the instants of the time fields, for that script.
 */
export function activityFormValues(kind: FormKind, p: Record<string, string>, tz: string): { values: Record<string, string>; instants: Record<string, string> } {
  const values: Record<string, string> = { tz };
  const instants: Record<string, string> = {};
  for (const name of FORM_FIELDS[kind]) {
    if (TIME_FIELDS[kind].includes(name)) {
      const ms = instantMs(p[name]);
      if (ms === null) continue;
      values[name] = instantToLocal(ms, tz);
      instants[name] = new Date(ms).toISOString();
    } else if (name === "duration") {
      const ms = Number(p.hs_call_duration);
      if (p.hs_call_duration && Number.isFinite(ms)) values.duration = String(Math.round(ms / 60_000));
    } else if (HTML_BODIES.includes(name)) {
      values[name] = htmlToText(p[name] ?? "");
    } else if (name === "hs_email_text") {
      // An email logged through the API may have only its HTML.
      values[name] = p.hs_email_text || htmlToText(p.hs_email_html ?? "");
    } else {
      // Empty is the form's "none": a task without an owner is not given the reader's by default.
      values[name] = p[name] ?? "";
    }
  }
  return { values, instants };
}

/** What creating sets that editing leaves as it is: the logged time of a note or call, a task's status, type, outcome. */
const SET_AT_CREATION: Record<FormKind, string[]> = {
  notes: ["hs_timestamp"],
  tasks: ["hs_task_status", "hs_task_type"],
  calls: ["hs_timestamp", "hs_call_status"],
  meetings: ["hs_meeting_outcome"],
  emails: ["hs_timestamp"],
  communications: ["hs_timestamp", "hs_communication_logged_from"],
  postal_mail: ["hs_timestamp"],
};
/** Optional fields: left empty in an edit, their property is cleared (the API's empty value). */
const CLEARABLE: Record<FormKind, string[]> = { notes: [], tasks: ["hubspot_owner_id", "hs_task_priority"], calls: ["hs_call_duration", "hs_call_body"], meetings: [], emails: [], communications: [], postal_mail: [] };

/**
 * The properties an edited activity's form changes (PATCH semantics: only what differs from `stored`), or
 * the errors by field. A body compares by its text, so an HTML body written elsewhere keeps its markup when
 * its text was not changed; a time compares to the minute, the form's precision.
 */
export function activityPatch(kind: FormKind, v: Record<string, string>, now: number, stored: Record<string, string>): ActivityInput {
  const input = activityProperties(kind, v, now);
  if (!input.ok) return input;
  const next: Record<string, string> = { ...input.properties };
  for (const name of SET_AT_CREATION[kind]) delete next[name];
  for (const name of CLEARABLE[kind]) next[name] ??= "";
  const minute = (value: string | undefined) => {
    const ms = instantMs(value);
    return ms === null ? null : Math.floor(ms / 60_000);
  };
  for (const [name, value] of Object.entries(next)) {
    // An email's text was shown from its HTML when it had none (activityFormValues).
    const before = name === "hs_email_text" ? stored.hs_email_text || htmlToText(stored.hs_email_html ?? "") : (stored[name] ?? "");
    const same =
      HTML_BODIES.includes(name)
        ? htmlToText(before) === htmlToText(value)
        : name === "hs_timestamp" || TIME_FIELDS[kind].includes(name)
          ? minute(before) !== null && minute(before) === minute(value)
          : before === value;
    if (same) delete next[name];
  }
  return { ok: true, properties: next };
}
