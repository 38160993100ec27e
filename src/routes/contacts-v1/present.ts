/**
 * @module How a contact looks in the legacy v1 API (the real service's recorded shapes,
 * docs/reference/contacts-v1.md "Shapes"): the list entry, the full profile, and the
 * `merged-vids` / `merge-audits` / `identity-profiles` a merge gives the survivor.
 */
import type { CrmRow } from "../../services/crm/records";
import type { MergeRow, RecentKind } from "../../services/contacts-v1/contacts";
import { ENTRY_VALUES_AT, isPicked, SYSTEM_PROPERTIES, type EntryRow, type ListContact } from "../../services/contacts-v1/list";


/**
 * A property's v1 value: the system properties as strings, else the stored one. Looked up per wanted name
 * rather than by copying every property of every row into a new object: that copy would be most of the cost
 * of presenting a page of 100 (225 µs instead of 33 µs for 100 contacts, timed in Node).
 */
export function v1Value(row: CrmRow, name: string): string | undefined {
  switch (name) {
    case "createdate":
      return String(row.createdAt);
    case "lastmodifieddate":
      return String(row.updatedAt);
    case "hs_object_id":
      return String(row.id);
    default:
      return Object.hasOwn(row.properties, name) ? row.properties[name] : undefined;
  }
}

/** Every property the contact has, system ones included. */
export const allNames = (row: CrmRow) => [...Object.keys(row.properties), ...SYSTEM_PROPERTIES];

export interface Identity {
  type: string;
  value: string;
  timestamp: number;
  "is-primary"?: boolean;
  "is-secondary"?: boolean;
}

/** The survivor's identity profile (its emails, the merged-away ones as secondary) and one per merged vid. */
export function identityProfiles(row: ListContact, merges: MergeRow[]) {
  const identities: Identity[] = [];
  if (row.email) identities.push({ type: "EMAIL", value: row.email, timestamp: row.createdAt, "is-primary": true });
  identities.push({ type: "LEAD_GUID", value: row.guid, timestamp: row.createdAt });
  for (const m of merges) if (m.mergedEmail) identities.push({ type: "EMAIL", value: m.mergedEmail, timestamp: m.mergedCreatedAt, "is-secondary": true });
  return [
    { vid: row.id, "saved-at-timestamp": row.updatedAt, "deleted-changed-timestamp": 0, identities },
    ...merges.map((m) => ({
      vid: m.mergedVid,
      "saved-at-timestamp": m.mergedAt,
      "deleted-changed-timestamp": 0,
      identities: [{ type: "LEAD_GUID", value: m.mergedGuid, timestamp: m.mergedCreatedAt }],
    })),
  ];
}

/** The recorded `merged-vids`: the merged-away vids then the survivor's own, or [] when never merged. */
export const mergedVids = (row: ListContact, merges: MergeRow[]) => (merges.length ? [...merges.map((m) => m.mergedVid), row.id] : []);

const version = (value: string, timestamp: number, sourceVids?: number[]) => ({
  value,
  "source-type": "API",
  "source-id": null,
  "source-label": null,
  ...(sourceVids ? { "source-vids": sourceVids } : {}),
  timestamp,
  selected: false,
});

/** The recorded `merge-audits` entries, one per merge into this contact. */
export function mergeAudits(row: ListContact, merges: MergeRow[]) {
  return merges.map((m) => ({
    "canonical-vid": row.id,
    "vid-to-merge": m.mergedVid,
    timestamp: m.mergedAt,
    "entity-id": JSON.stringify({ authName: "api", hubId: row.portalId }),
    "num-properties-moved": m.propertiesMoved,
    ...(m.mergedEmail ? { merged_from_email: version(m.mergedEmail, m.mergedCreatedAt, [m.mergedVid]) } : {}),
    ...(m.survivorEmail ? { merged_to_email: version(m.survivorEmail, row.createdAt) } : {}),
    "first-name": m.firstName ?? "",
  }));
}

const profileToken = (row: ListContact) => row.guid.replace(/-/g, "");
/** The contact's record page in the web app (signed-out visitors are sent to sign in first, then back). */
const profileUrl = (id: number | string, origin: string) => `${origin}/app/contacts/${id}`;

/** The head every v1 shape shares. */
function head(row: CrmRow, merges: MergeRow[], origin: string) {
  return {
    vid: row.id,
    "canonical-vid": row.id,
    "merged-vids": mergedVids(row, merges),
    "portal-id": row.portalId,
    "is-contact": true,
    "profile-token": profileToken(row),
    "profile-url": profileUrl(row.id, origin),
  };
}

/**
 * The asked properties of a list, written once per page: each name once (a name asked twice is answered
 * once, where it was first asked) with its JSON key (`"name":{"value":`) and where its value comes from.
 */
export interface Wanted {
  names: string[];
  keys: string[];
  /** Per name: its slot among `picked` (0 and up), or a column (CREATED, UPDATED, VID), or ABSENT. */
  sources: number[];
  /** The names whose values are stored properties (isPicked), in order: what the list statement picks. */
  picked: string[];
}
const CREATED = -1;
const UPDATED = -2;
const VID = -3;
const ABSENT = -4;
// Tied to SYSTEM_PROPERTIES: a column-backed name added there without a source here fails to compile.
const COLUMN_SOURCES: Record<string, number> = { createdate: CREATED, lastmodifieddate: UPDATED, hs_object_id: VID } satisfies Record<(typeof SYSTEM_PROPERTIES)[number], number>;

function wantedOf(asked: string[]): Wanted {
  const names = [...new Set(asked)];
  const picked = names.filter(isPicked);
  const sources = names.map((n) => (Object.hasOwn(COLUMN_SOURCES, n) ? COLUMN_SOURCES[n]! : isPicked(n) ? picked.indexOf(n) : ABSENT));
  return { names, keys: names.map((n) => `${JSON.stringify(n)}:{"value":`), sources, picked };
}

/** What every entry of a list page shares: the asked properties, the account and the request's origin. */
export interface EntryPage {
  wanted: Wanted;
  /** The account's id as text. */
  portal: string;
  /** The request's origin as the content of a JSON string. */
  origin: string;
  /** `showListMemberships`: an empty `list-memberships` ends each entry. */
  memberships: boolean;
}

export function entryPage(asked: string[], portalId: number, origin: string, memberships = false): EntryPage {
  return { wanted: wantedOf(asked), portal: String(portalId), origin: JSON.stringify(origin).slice(1, -1), memberships };
}

/** A whole record as the row of its list entry, as the list statement answers it (EntryRow). */
export function entryRow(row: CrmRow, wanted: Wanted): EntryRow {
  const values = wanted.picked.map((n) => (Object.hasOwn(row.properties, n) ? JSON.stringify(row.properties[n]) : null));
  return [row.id, String(row.createdAt), String(row.updatedAt), row.email, row.guid, null, ...values];
}

const NO_MERGES: MergeRow[] = [];
/** A contact's merges on a page, by vid. */
const mergesOn = (merges: Map<number, MergeRow[]>, id: number) => merges.get(id) ?? NO_MERGES;

/**
 * A page's list entries (the v1 list's `contacts`) as JSON text, comma-separated: each entry has the asked
 * properties with their value only (a property the contact does not hold is left out), then `form-submissions`,
 * `identity-profiles`, `merge-audits` and, when asked, an empty `list-memberships`. A row's values are the
 * stored values of the asked names as JSON, in order; the column-backed names are written from the
 * columns. `added` says which time is each entry's `addedAt`.
 *
 * Written as text rather than built as objects and serialised: a page of 100 answers 0.1–0.4 ms sooner in
 * workerd (interleaved runs against the object form). The values come as JSON and the times as text from
 * SQLite, which spares the Worker a conversion call for each. The whole page is appended to one string
 * rather than written entry by entry and joined: a join would copy the page once more. Writing and encoding
 * a page of 100 takes about 0.025 ms less (timed in workerd, 1,000 pages a run), and the list rose by
 * 0.01–0.03 of its floor (interleaved runs against the joined form). A merged contact's profiles and
 * audits are rare and keep their object form (identityProfiles, mergeAudits), which the profile shares.
 */
export function listEntriesText(rows: EntryRow[], merges: Map<number, MergeRow[]>, page: EntryPage, added: RecentKind): string {
  const { keys, sources } = page.wanted;
  const { portal, origin } = page;
  const tail = page.memberships ? ',"list-memberships":[]}' : "}";
  let text = "";
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const [id, created, updated, email, rawGuid] = row;
    const vid = String(id);
    const guid = JSON.stringify(rawGuid);
    const merged = mergesOn(merges, id);
    if (r) text += ",";
    text += `{"addedAt":${added === "updated" ? updated : created},"vid":${vid},"canonical-vid":${vid},"merged-vids":`;
    const contact: ListContact | null = merged.length ? { id, portalId: Number(portal), email, guid: rawGuid, createdAt: Number(created), updatedAt: Number(updated) } : null;
    text += contact ? JSON.stringify(mergedVids(contact, merged)) : "[]";
    text += `,"portal-id":${portal},"is-contact":true,"profile-token":${guid.replace(/-/g, "")},"profile-url":"${profileUrl(vid, origin)}","properties":{`;
    let first = true;
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i]!;
      const value = source >= 0 ? row[ENTRY_VALUES_AT + source] : source === UPDATED ? `"${updated}"` : source === CREATED ? `"${created}"` : source === VID ? `"${vid}"` : null;
      if (value == null || value === "null") continue;
      text += first ? keys[i] : `,${keys[i]}`;
      text += `${value}}`;
      first = false;
    }
    text += '},"form-submissions":[],"identity-profiles":';
    if (contact) {
      text += `${JSON.stringify(identityProfiles(contact, merged))},"merge-audits":${JSON.stringify(mergeAudits(contact, merged))}`;
    } else {
      text += `[{"vid":${vid},"saved-at-timestamp":${updated},"deleted-changed-timestamp":0,"identities":[`;
      if (email !== null) text += `{"type":"EMAIL","value":${JSON.stringify(email)},"timestamp":${created},"is-primary":true},`;
      text += `{"type":"LEAD_GUID","value":${guid},"timestamp":${created}}]}],"merge-audits":[]`;
    }
    text += tail;
  }
  return text;
}

export interface ProfileOptions {
  /** Only these properties (the `property` parameter), else all. */
  properties?: string[];
  /** `propertyMode=value_and_history` (the default of the profile reads) adds `versions`. */
  history: boolean;
  listMemberships: boolean;
}

/**
 * The full profile. `versions` holds one entry, the current value at the record's last
 * modification: the store keeps no per-property history (docs/reference/contacts-v1.md "Decisions").
 */
export function presentProfile(row: CrmRow, merges: MergeRow[], origin: string, opts: ProfileOptions) {
  const properties: Record<string, { value: string; versions?: ReturnType<typeof version>[] }> = {};
  for (const name of opts.properties ?? allNames(row)) {
    const value = v1Value(row, name);
    if (value === undefined) continue;
    properties[name] = opts.history ? { value, versions: [version(value, name === "createdate" ? row.createdAt : row.updatedAt)] } : { value };
  }
  return {
    ...head(row, merges, origin),
    properties,
    "form-submissions": [],
    ...(opts.listMemberships ? { "list-memberships": [] } : {}),
    "identity-profiles": identityProfiles(row, merges),
    "merge-audits": mergeAudits(row, merges),
  };
}
