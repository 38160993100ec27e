/**
 * @module The built-in properties of activities (notes, tasks, calls, meetings, emails, communications,
 * postal mail) and leads, as the real service names them, with the fixed options of its enumerations.
 * Writes are checked against those options (src/services/crm/values.ts); `hubspot_owner_id` takes the
 * account's owners.
 */
import type { ActivityType } from "../../db/tables/crm";

export type BuiltInType = "string" | "number" | "date" | "datetime" | "enumeration" | "bool";

/** [name, type, fixed options (enumerations whose values are the real service's constants)]. */
export type BuiltIn = [string, BuiltInType, string[]?];

/** Every activity has a time (it orders the timeline) and an owner. */
const COMMON: BuiltIn[] = [["hs_createdate", "datetime"], ["hs_timestamp", "datetime"], ["hubspot_owner_id", "enumeration"], ["hs_attachment_ids", "string"]];

export const TASK_STATUSES = ["NOT_STARTED", "IN_PROGRESS", "WAITING", "COMPLETED", "DEFERRED"];

export const ACTIVITY_BUILT_IN: Record<ActivityType | "leads", BuiltIn[]> = {
  notes: [...COMMON, ["hs_note_body", "string"]],
  tasks: [
    ...COMMON,
    ["hs_task_subject", "string"],
    ["hs_task_body", "string"],
    ["hs_task_status", "enumeration", TASK_STATUSES],
    ["hs_task_priority", "enumeration", ["NONE", "LOW", "MEDIUM", "HIGH"]],
    // "TODO" is the real service's value for a plain to-do task, not a marker.
    ["hs_task_type", "enumeration", ["TODO", "CALL", "EMAIL", "LINKED_IN", "MEETING", "LINKED_IN_CONNECT", "LINKED_IN_MESSAGE"]],
    ["hs_task_reminders", "string"],
    ["hs_task_completion_date", "datetime"],
    ["hs_task_for_object_type", "enumeration", ["CONTACT", "COMPANY", "DEAL", "TICKET"]],
  ],
  calls: [
    ...COMMON,
    ["hs_call_title", "string"],
    ["hs_call_body", "string"],
    ["hs_call_duration", "number"],
    ["hs_call_from_number", "string"],
    ["hs_call_to_number", "string"],
    ["hs_call_recording_url", "string"],
    ["hs_call_direction", "enumeration", ["INBOUND", "OUTBOUND"]],
    ["hs_call_status", "enumeration", ["BUSY", "CALLING_CRM_USER", "CANCELED", "COMPLETED", "CONNECTING", "FAILED", "IN_PROGRESS", "NO_ANSWER", "QUEUED", "RINGING"]],
    ["hs_call_disposition", "string"],
    ["hs_call_external_id", "string"],
    ["hs_call_external_account_id", "string"],
  ],
  meetings: [
    ...COMMON,
    ["hs_meeting_title", "string"],
    ["hs_meeting_body", "string"],
    ["hs_internal_meeting_notes", "string"],
    ["hs_meeting_external_url", "string"],
    ["hs_meeting_location", "string"],
    ["hs_meeting_start_time", "datetime"],
    ["hs_meeting_end_time", "datetime"],
    ["hs_meeting_outcome", "enumeration", ["SCHEDULED", "COMPLETED", "RESCHEDULED", "NO_SHOW", "CANCELED"]],
  ],
  emails: [
    ...COMMON,
    ["hs_email_subject", "string"],
    ["hs_email_text", "string"],
    ["hs_email_html", "string"],
    ["hs_email_headers", "string"],
    ["hs_email_direction", "enumeration", ["EMAIL", "INCOMING_EMAIL", "FORWARDED_EMAIL"]],
    ["hs_email_status", "enumeration", ["BOUNCED", "FAILED", "SCHEDULED", "SENDING", "SENT"]],
  ],
  communications: [
    ...COMMON,
    ["hs_communication_channel_type", "enumeration", ["SMS", "WHATS_APP", "LINKEDIN_MESSAGE"]],
    ["hs_communication_logged_from", "enumeration", ["CRM"]],
    ["hs_communication_body", "string"],
  ],
  postal_mail: [...COMMON, ["hs_postal_mail_body", "string"]],
  leads: [
    ["hs_createdate", "datetime"],
    ["hs_lead_name", "string"],
    ["hubspot_owner_id", "enumeration"],
    ["hs_lead_type", "enumeration", ["NEW_BUSINESS", "UPSELL", "RE_ATTEMPTING"]],
    ["hs_lead_label", "enumeration", ["HOT", "WARM", "COLD"]],
    ["hs_pipeline", "enumeration"],
    ["hs_pipeline_stage", "enumeration"],
  ],
};

/** The group each type's built-in properties sit in. */
export const ACTIVITY_GROUP: Record<ActivityType | "leads", string> = {
  notes: "note",
  tasks: "task",
  calls: "call",
  meetings: "meeting",
  emails: "email",
  communications: "communication",
  postal_mail: "postal_mail",
  leads: "leadinformation",
};

/** What a read answers with when it names no properties: the real service's activity defaults. */
export const ACTIVITY_DEFAULTS = ["hs_createdate", "hs_lastmodifieddate", "hs_object_id"];

/** The properties a search `query` looks in. */
export const ACTIVITY_SEARCHABLE: Record<ActivityType | "leads", string[]> = {
  notes: ["hs_note_body"],
  tasks: ["hs_task_subject", "hs_task_body"],
  calls: ["hs_call_title", "hs_call_body"],
  meetings: ["hs_meeting_title", "hs_meeting_body"],
  emails: ["hs_email_subject", "hs_email_text"],
  communications: ["hs_communication_body"],
  postal_mail: ["hs_postal_mail_body"],
  leads: ["hs_lead_name"],
};
