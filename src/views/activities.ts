/**
 * @module HTML of the activities on a record page's timeline (docs/reference/web.md, "Record page"): one
 * entry per note, task, call, meeting, email, communication or postal mail, newest first, each with what a
 * person looks for in it. Every value is escaped; the only HTML passed through is a body (a note's, a
 * communication's, a postal mail's), which the API stores as HTML, as the real service does, and which is
 * sanitised here for a page with scripts (src/lib/sanitize.ts, `inPage`). With the page's forms (`work`),
 * each entry has its buttons (complete a task, delete).
 */
import type { ActivityType } from "../db/tables/crm";
import { escapeHtml } from "../lib/html";
import { sanitizeMany } from "../lib/sanitize";
import type { ActivityRow } from "../services/web/activities";
import { textToHtml } from "../services/web/activity-input";
import { epochTimeTag, timeTag } from "./time";
import { activityControls, activityPostForm, type WorkContext } from "./activity-forms";
import { memo } from "../lib/memo";

const e = escapeHtml;

/** An activity time as stored (epoch ms or an ISO 8601 instant, as the API takes them) as a `<time>`; "" when it is neither. */
function timeOf(value: string | undefined): string {
  if (!value) return "";
  const digits = DIGITS.test(value);
  const ms = digits && value.length <= 15 ? Number(value) : Date.parse(value);
  if (Number.isNaN(ms)) return "";
  return digits ? epochTimeTag(ms, value) : timeTag(ms, value);
}
const DIGITS = /^\d+$/;

/** `hs_call_duration` is in milliseconds: `3 min 20 s`, `1 h 5 min`, `45 s`. */
export function durationText(value: string | undefined): string {
  if (!value || !/^\d{1,12}$/.test(value)) return "";
  const s = Math.round(Number(value) / 1000);
  if (s < 60) return `${s} s`;
  const [h, m, rest] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return h > 0 ? `${h} h${m ? ` ${m} min` : ""}` : `${m} min${rest ? ` ${rest} s` : ""}`;
}

/** The task statuses by label, coloured like card STATUS badges (app.css). */
const TASK_STATUS: Record<string, [string, string]> = {
  NOT_STARTED: ["Not started", "default"],
  IN_PROGRESS: ["In progress", "info"],
  WAITING: ["Waiting", "warning"],
  COMPLETED: ["Completed", "success"],
  DEFERRED: ["Deferred", "default"],
};
const CALL_DIRECTION: Record<string, string> = { INBOUND: "Inbound call", OUTBOUND: "Outbound call" };
const EMAIL_DIRECTION: Record<string, string> = { EMAIL: "Sent email", INCOMING_EMAIL: "Received email", FORWARDED_EMAIL: "Forwarded email" };
const CHANNEL: Record<string, string> = { SMS: "SMS", WHATS_APP: "WhatsApp", LINKEDIN_MESSAGE: "LinkedIn message" };

/** A stored option by its label, or the stored value as it is when it has none. */
const labelOf = (labels: Record<string, string>, value: string | undefined, fallback: string) => (value ? (labels[value] ?? value) : fallback);

/** The parts of one entry: its title line, the line under it (kind, facts, time), and a body. */
interface Entry {
  title: string;
  meta: string[];
  body?: string;
}

/** The body an activity shows, as stored (HTML), if it has one. */
function bodyOf(a: ActivityRow): string | undefined {
  const p = a.properties;
  switch (a.type) {
    case "notes":
      return p.hs_note_body;
    case "calls":
      return p.hs_call_body;
    case "emails":
      // An email's HTML when it has one; its text otherwise, as paragraphs.
      return p.hs_email_html || (p.hs_email_text ? textToHtml(p.hs_email_text) : undefined);
    case "communications":
      return p.hs_communication_body;
    case "postal_mail":
      return p.hs_postal_mail_body;
    default:
      return undefined;
  }
}

/** One entry; `body` is the activity's body already sanitised. */
function entryOf(a: ActivityRow, body: string | undefined): Entry {
  const p = a.properties;
  const at = timeOf(p.hs_timestamp);
  switch (a.type) {
    case "notes":
      return { title: "Note", meta: [at], body };
    case "tasks": {
      const [label, tone] = TASK_STATUS[p.hs_task_status ?? ""] ?? [p.hs_task_status, "default"];
      const status = label ? ` <span class="badge badge-${tone}">${e(label)}</span>` : "";
      return { title: `${e(p.hs_task_subject || "Task")}${status}`, meta: ["Task", at ? `due ${at}` : ""] };
    }
    case "calls":
      return { title: e(p.hs_call_title || "Call"), meta: [e(labelOf(CALL_DIRECTION, p.hs_call_direction, "Call")), e(durationText(p.hs_call_duration)), at], body };
    case "meetings": {
      const [start, end] = [timeOf(p.hs_meeting_start_time), timeOf(p.hs_meeting_end_time)];
      const when = start && end ? `${start} – ${end}` : start || at;
      return { title: e(p.hs_meeting_title || "Meeting"), meta: ["Meeting", when] };
    }
    case "emails":
      return { title: e(p.hs_email_subject || "(no subject)"), meta: [e(labelOf(EMAIL_DIRECTION, p.hs_email_direction, "Email")), at], body };
    case "communications":
      return { title: e(labelOf(CHANNEL, p.hs_communication_channel_type, "Communication")), meta: [at], body };
    case "postal_mail":
      return { title: "Postal mail", meta: [at], body };
  }
}

/** What a control names an activity by: a task or call by its subject or title, else its kind. */
const NAME_PROPERTY: Partial<Record<ActivityType, string>> = { tasks: "hs_task_subject", calls: "hs_call_title", meetings: "hs_meeting_title", emails: "hs_email_subject" };
const controlName = (a: ActivityRow) => `${a.type.replace(/s$/, "").replace("_", " ")} ${a.properties[NAME_PROPERTY[a.type] ?? ""] || `#${a.id}`}`;

function activityItem(a: ActivityRow, sanitized: string | undefined, work?: WorkContext): string {
  const { title, meta, body } = entryOf(a, sanitized);
  const kind: ActivityType = a.type;
  return `<li class="activity activity-${kind}" data-activity-id="${a.id}"><div class="event-summary"><span class="event-head">${title}</span><span class="event-meta">${meta.filter(Boolean).join(" · ")}</span></div>${
    body ? `<div class="event-detail activity-body">${body}</div>` : ""
  }${work ? activityControls(work, a, controlName(a)) : ""}</li>`;
}

/**
 * Entries this isolate rendered lately. An entry is a pure function of the activity as stored (id, type,
 * properties) and of the page's path (its buttons' targets; the CSRF token is in the list's one form), so a
 * remembered entry is always the right one: an edited activity has other properties, hence another key.
 * A record page of 50 activities otherwise renders all 50 on every view. Bounded by characters kept;
 * forgotten all at once when full.
 */
const rememberedEntries = memo<string, string>(2_000_000, (key, item) => key.length + item.length);
const entryKey = (a: ActivityRow, work?: WorkContext) => `${work ? work.path : ""}\u0000${a.type}\u0000${a.id}\u0000${a.stored}`;

/**
 * The record's activities, newest first, and a line saying that there are older ones when the page shows
 * only the newest. Activity types without an entry of their own here have none.
 */
export async function activitiesHtml(rows: ActivityRow[], hasMore: boolean, work?: WorkContext): Promise<string> {
  if (rows.length === 0) return `<p class="empty">No activities yet.</p>`;
  const keys = rows.map((a) => entryKey(a, work));
  const known = keys.map((k) => rememberedEntries.get(k));
  const missing = rows.filter((_, i) => known[i] === undefined);
  // Every body still to render in one pass of the sanitizer (src/lib/sanitize.ts, sanitizeMany).
  const bodies = missing.map(bodyOf);
  const sanitized = await sanitizeMany(bodies.filter((b): b is string => Boolean(b)), { inPage: true });
  let [m, next] = [0, 0];
  const items = rows.map((a, i) => {
    const seen = known[i];
    if (seen !== undefined) return seen;
    const body = bodies[m++];
    const item = activityItem(a, body ? sanitized[next++] : undefined, work);
    rememberedEntries.set(keys[i]!, item);
    return item;
  });
  const more = hasMore
    ? `<p class="muted activities-more" role="note">Showing the newest ${rows.length} activities; older ones are not shown here. The API lists them all (the associations of this record).</p>`
    : "";
  return `<ol class="activities" aria-labelledby="activities-h">${items.join("")}</ol>${work ? activityPostForm(work) : ""}${more}`;
}

/** On the pages of older events: the activities are not read again there. */
export const activitiesOnFirstPage = (firstPage: string) => `<p class="muted">The activities are on <a href="${escapeHtml(firstPage)}#activities-h">the first page</a>.</p>`;
