/**
 * @module The record page's activity forms (docs/reference/web.md, "Working on a record"): log a note,
 * create a task, log a call, a meeting, an email, a message or postal mail, each a disclosure above the
 * Activities list that posts to `/app/{type}/{id}/activities`; each activity's "Edit" link and "Delete"
 * button, and each task's "Mark complete". Shown alone, with the values kept and the errors beside their
 * fields, when a post is refused, and to edit an activity.
 */
import { memo } from "../lib/memo";
import { escapeHtml } from "../lib/html";
import { FORM_FIELDS, isFormKind, type FormKind } from "../services/web/activity-input";
import type { OwnerChoice } from "../services/web/record-work";
import { csrfField, emptyForm, formErrors, inputField, selectField, textareaField, type FormState } from "./form-fields";

const e = escapeHtml;

/** What the forms of one record page need. */
export interface WorkContext {
  /** The record's page path, `/app/contacts/12`. */
  path: string;
  csrf: string;
  owners: OwnerChoice[];
  /** The signed-in user's email: their owner is the task's owner by default. */
  email: string;
}

export const FORM_TITLE: Record<FormKind, { open: string; submit: string; one: string }> = {
  notes: { open: "Log a note", submit: "Log note", one: "note" },
  tasks: { open: "Create a task", submit: "Create task", one: "task" },
  calls: { open: "Log a call", submit: "Log call", one: "call" },
  meetings: { open: "Log a meeting", submit: "Log meeting", one: "meeting" },
  emails: { open: "Log an email", submit: "Log email", one: "email" },
  communications: { open: "Log a message", submit: "Log message", one: "message" },
  postal_mail: { open: "Log postal mail", submit: "Log postal mail", one: "postal mail" },
};

/** An existing activity's form: where it posts, and the instants its time fields show (for time-zone.js). */
export interface EditOf {
  id: number;
  instants: Record<string, string>;
}

const PRIORITIES = [
  { value: "", label: "None" },
  { value: "LOW", label: "Low" },
  { value: "MEDIUM", label: "Medium" },
  { value: "HIGH", label: "High" },
];
const DIRECTIONS = [
  { value: "OUTBOUND", label: "Outbound" },
  { value: "INBOUND", label: "Inbound" },
];
const EMAIL_DIRECTIONS = [
  { value: "EMAIL", label: "Sent" },
  { value: "INCOMING_EMAIL", label: "Received" },
  { value: "FORWARDED_EMAIL", label: "Forwarded" },
];
const CHANNELS = [
  { value: "SMS", label: "SMS" },
  { value: "WHATS_APP", label: "WhatsApp" },
  { value: "LINKEDIN_MESSAGE", label: "LinkedIn message" },
];

/** The fields of one kind's form; ids are prefixed by the kind, so the seven forms share a page. */
function fields(kind: FormKind, w: WorkContext, s: FormState, edit?: EditOf): string {
  const id = (name: string) => `${kind}-${name.replace(/_/g, "-")}`;
  // An edited activity's times were written in the account's time zone; the script shows them in the reader's.
  const at = (name: string) => (edit?.instants[name] ? `data-instant="${e(edit.instants[name])}"` : undefined);
  switch (kind) {
    case "notes":
      return textareaField({ id: id("hs_note_body"), name: "hs_note_body", label: "Note", state: s, required: true, rows: 4 });
    case "tasks": {
      const mine = w.owners.find((o) => o.email.toLowerCase() === w.email.toLowerCase())?.value ?? "";
      return (
        inputField({ id: id("hs_task_subject"), name: "hs_task_subject", label: "Subject", state: s, required: true, extra: 'maxlength="500"' }) +
        inputField({ id: id("hs_timestamp"), name: "hs_timestamp", label: "Due", state: s, required: true, type: "datetime-local", extra: at("hs_timestamp") }) +
        selectField({ id: id("hubspot_owner_id"), name: "hubspot_owner_id", label: "Owner", state: s, options: [{ value: "", label: "No owner" }, ...w.owners], selected: mine }) +
        selectField({ id: id("hs_task_priority"), name: "hs_task_priority", label: "Priority", state: s, options: PRIORITIES })
      );
    }
    case "calls":
      return (
        inputField({ id: id("hs_call_title"), name: "hs_call_title", label: "Title", state: s, required: true, extra: 'maxlength="500"' }) +
        selectField({ id: id("hs_call_direction"), name: "hs_call_direction", label: "Direction", state: s, options: DIRECTIONS, required: true }) +
        inputField({ id: id("duration"), name: "duration", label: "Duration in minutes", state: s, type: "number", extra: 'min="0" max="1440" step="1" inputmode="numeric"' }) +
        textareaField({ id: id("hs_call_body"), name: "hs_call_body", label: "Call notes", state: s, rows: 3 })
      );
    case "meetings":
      return (
        inputField({ id: id("hs_meeting_title"), name: "hs_meeting_title", label: "Title", state: s, required: true, extra: 'maxlength="500"' }) +
        inputField({ id: id("hs_meeting_start_time"), name: "hs_meeting_start_time", label: "Start", state: s, required: true, type: "datetime-local", extra: at("hs_meeting_start_time") }) +
        inputField({ id: id("hs_meeting_end_time"), name: "hs_meeting_end_time", label: "End", state: s, required: true, type: "datetime-local", extra: at("hs_meeting_end_time") })
      );
    case "emails":
      return (
        inputField({ id: id("hs_email_subject"), name: "hs_email_subject", label: "Subject", state: s, required: true, extra: 'maxlength="500"' }) +
        selectField({ id: id("hs_email_direction"), name: "hs_email_direction", label: "Direction", state: s, options: EMAIL_DIRECTIONS, required: true }) +
        textareaField({ id: id("hs_email_text"), name: "hs_email_text", label: "Email", state: s, rows: 4 })
      );
    case "communications":
      return (
        selectField({ id: id("hs_communication_channel_type"), name: "hs_communication_channel_type", label: "Channel", state: s, options: CHANNELS, required: true }) +
        textareaField({ id: id("hs_communication_body"), name: "hs_communication_body", label: "Message", state: s, required: true, rows: 3 })
      );
    case "postal_mail":
      return textareaField({ id: id("hs_postal_mail_body"), name: "hs_postal_mail_body", label: "Mail", state: s, required: true, rows: 3 });
  }
}

/**
 * One kind's form, new or (with `edit`) an existing activity's. Times are read in the browser's time zone:
 * time-zone.js fills `tz` (without script: the zone the form was shown in, UTC for a new one).
 */
export function activityForm(kind: FormKind, w: WorkContext, s: FormState = emptyForm(), edit?: EditOf): string {
  const tz = s.values.tz && /^[A-Za-z0-9_+\-/]{1,64}$/.test(s.values.tz) ? s.values.tz : "UTC";
  const action = edit ? `${w.path}/activities/${edit.id}` : `${w.path}/activities`;
  const submit = edit ? `Save ${FORM_TITLE[kind].one}` : FORM_TITLE[kind].submit;
  return `<form class="work-form" method="post" action="${e(action)}">${csrfField(w.csrf)}<input type="hidden" name="kind" value="${kind}"><input type="hidden" name="tz" value="${e(tz)}" data-time-zone>
${formErrors(s, FORM_FIELDS[kind])}${fields(kind, w, s, edit)}<div class="form-buttons"><button type="submit">${submit}</button></div></form>`;
}

/** The seven forms above the Activities list, each behind its disclosure. */
export function activityForms(w: WorkContext): string {
  const key = `${w.path}\u0000${w.csrf}\u0000${w.email}\u0000${w.owners.map((o) => `${o.value}\u0001${o.label}\u0001${o.email}`).join("\u0002")}`;
  return rememberedForms.through(key, () => renderForms(w));
}

function renderForms(w: WorkContext): string {
  const kinds: FormKind[] = ["notes", "tasks", "calls", "meetings", "emails", "communications", "postal_mail"];
  return `<div class="work-forms">${kinds.map((k) => `<details class="work" id="new-${k}"><summary>${FORM_TITLE[k].open}</summary>${activityForm(k, w)}</details>`).join("")}</div>`;
}

/**
 * The forms are a pure function of the page's path, the session's CSRF token, the user and the account's
 * owners (all in the key): a person working on a record comes back to its page after every form, so they are
 * remembered. Bounded: forgotten all at once when full (about 7 KB each).
 */
const rememberedForms = memo<string, string>(500);

/**
 * The one form every activity's buttons post (`form`/`formaction`): its CSRF token once, not once per
 * button. A form of its own for each button would make a page of 50 activities a third heavier.
 */
export const ACTIVITY_POST = "activity-post";
export const activityPostForm = (w: WorkContext) => `<form id="${ACTIVITY_POST}" method="post" hidden>${csrfField(w.csrf)}</form>`;

/**
 * The buttons of one activity: every activity can be edited and deleted; a task not yet completed can be
 * completed. They post the list's ACTIVITY_POST form, which the page holds once (activityPostForm).
 */
export function activityControls(w: WorkContext, a: { id: number; type: string; properties: Record<string, string> }, name: string): string {
  const post = (action: string, label: string, text: string, cls: string) =>
    `<button type="submit" form="${ACTIVITY_POST}" formaction="${e(w.path)}/activities/${a.id}/${action}" class="${cls}" aria-label="${e(label)}">${text}</button>`;
  const complete = a.type === "tasks" && a.properties.hs_task_status !== "COMPLETED" ? post("complete", `Mark complete: ${name}`, "Mark complete", "small") : "";
  const edit = isFormKind(a.type) ? `<a class="button small" href="${e(w.path)}/activities/${a.id}/edit" aria-label="${e(`Edit ${name}`)}">Edit</a>` : "";
  return `<div class="activity-controls">${edit}${complete}${post("delete", `Delete ${name}`, "Delete", "small danger")}</div>`;
}
