/**
 * @module The v1 engagement ↔ v3 activity mapping, both ways (docs/reference/engagements.md "Mapping"):
 * a v1 write becomes the v3 properties of the one row, and any row of an activity type (made through v1
 * or v3) reads as a v1 engagement. Pure functions: the table is in src/schemas/engagements.ts.
 */
import type { ActivityType } from "../../db/tables/crm";
import { isoTime } from "../../lib/iso";
import type { CrmRow } from "../crm/records";
import {
  EMAIL_HEADER_KEYS,
  ENGAGEMENT_FIELDS,
  METADATA_FIELDS,
  V1_TYPE_OF,
  WRITABLE_TYPES,
  type EngagementType,
  type FieldKind,
  type WritableType,
} from "../../schemas/engagements";

/** The engagement fields a write may carry (`timestamp`, `ownerId`), metadata and attachments. */
export interface EngagementWrite {
  type?: WritableType;
  timestamp?: number;
  ownerId?: number | null;
  metadata: Record<string, unknown>;
  attachments?: { id: number }[];
}

/** The v3 property a v1 field is written to, for naming v1 fields in the errors of the v3 checks. */
export function v1FieldOf(type: ActivityType, property: string): string | undefined {
  if (property === ENGAGEMENT_FIELDS.timestamp) return "engagement.timestamp";
  if (property === ENGAGEMENT_FIELDS.ownerId) return "engagement.ownerId";
  if (property === "hs_email_direction") return "engagement.type";
  if (property === "hs_attachment_ids") return "attachments";
  if (property === "hs_email_headers") return "metadata";
  const field = METADATA_FIELDS[type].find(([, p]) => p === property);
  return field ? `metadata.${field[0]}` : undefined;
}

const stored = (kind: FieldKind, value: unknown): string => {
  // null clears the property, as an empty string does in v3.
  if (value === null || value === undefined) return "";
  if (kind === "time") return isoTime(value as number);
  if (kind === "list") return (value as number[]).join(";");
  return String(value);
};

/** Epoch milliseconds of a v3 datetime value: digits as they are, else an ISO time; undefined when neither. */
export function msOf(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  if (/^\d{1,15}$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function shown(kind: FieldKind, value: string): unknown {
  if (kind === "text") return value;
  if (kind === "number") {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  if (kind === "time") return msOf(value);
  const list = value.split(";").map((v) => msOf(v.trim()));
  return list.every((v) => v !== undefined) ? list : undefined;
}

/** The email headers a row holds (`hs_email_headers`, JSON), or {} when it holds none or not an object. */
function headersOf(props: Record<string, string>): Record<string, unknown> {
  const raw = props.hs_email_headers;
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The v3 properties of a v1 write on `type`. `current` is the row an update changes (its email headers are
 * merged with the given ones); on a create it is undefined. Fields left out of the write are left out here,
 * so an update leaves them as they are.
 */
export function toProperties(type: ActivityType, write: EngagementWrite, current?: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, property, kind] of METADATA_FIELDS[type]) {
    if (Object.hasOwn(write.metadata, key)) out[property] = stored(kind, write.metadata[key]);
  }
  if (type === "emails") {
    const given = EMAIL_HEADER_KEYS.filter((k) => Object.hasOwn(write.metadata, k));
    if (given.length) {
      const headers = { ...headersOf(current ?? {}) };
      for (const k of given) {
        if (write.metadata[k] === null) delete headers[k];
        else headers[k] = write.metadata[k];
      }
      out.hs_email_headers = Object.keys(headers).length ? JSON.stringify(headers) : "";
    }
    if (write.type) out.hs_email_direction = write.type;
  }
  if (write.timestamp !== undefined) out[ENGAGEMENT_FIELDS.timestamp] = isoTime(write.timestamp);
  if (write.ownerId !== undefined) out[ENGAGEMENT_FIELDS.ownerId] = write.ownerId === null ? "" : String(write.ownerId);
  if (write.attachments !== undefined) out.hs_attachment_ids = write.attachments.map((a) => a.id).join(";");
  return out;
}

/** The v3 type a v1 type is stored as. */
export const storedType = (type: WritableType): ActivityType => WRITABLE_TYPES[type];

/** A row's v1 type: its activity type's, and for emails the direction it was written with. */
export function v1TypeOf(row: CrmRow): EngagementType {
  const type = row.objectType as ActivityType;
  if (type === "emails") {
    const direction = row.properties.hs_email_direction;
    if (direction === "INCOMING_EMAIL" || direction === "FORWARDED_EMAIL") return direction;
  }
  return V1_TYPE_OF[type];
}

/** A row's metadata: each mapped property it holds, as the v1 value; the email headers as their fields. */
export function metadataOf(row: CrmRow): Record<string, unknown> {
  const type = row.objectType as ActivityType;
  const out: Record<string, unknown> = {};
  if (type === "emails") {
    const headers = headersOf(row.properties);
    for (const k of EMAIL_HEADER_KEYS) if (headers[k] !== undefined) out[k] = headers[k];
  }
  for (const [key, property, kind] of METADATA_FIELDS[type]) {
    const value = row.properties[property];
    if (value === undefined) continue;
    const v = shown(kind, value);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** A row's engagement time: `hs_timestamp`, else (an activity written without one) when it was created. */
export const timestampOf = (row: CrmRow) => msOf(row.properties.hs_timestamp) ?? row.createdAt;

/** A row's owner as a number, when it holds a numeric one. */
export function ownerOf(row: CrmRow): number | undefined {
  const v = row.properties.hubspot_owner_id;
  return v && /^\d{1,15}$/.test(v) ? Number(v) : undefined;
}

/** A row's attachments: the file ids of `hs_attachment_ids`. */
export const attachmentsOf = (row: CrmRow) =>
  (row.properties.hs_attachment_ids ?? "")
    .split(";")
    .map((v) => v.trim())
    .filter((v) => /^\d{1,15}$/.test(v))
    .map((v) => ({ id: Number(v) }));

/** The real service's `active`: a task is active until it is completed; every other engagement always is. */
export const activeOf = (row: CrmRow) => !(row.objectType === "tasks" && row.properties.hs_task_status === "COMPLETED");
