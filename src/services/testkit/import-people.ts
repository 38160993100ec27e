/**
 * @module The people, apps and credentials of an import (docs/reference/testkit.md, "Import"): the export's
 * control-plane rows (the account's settings, users, owners, teams, private apps, installs, credentials) put
 * into the target account.
 *
 * - **New ids, always.** These rows live in the one control plane that every account shares, where the
 *   exported account may still live (an account copied for a test) and hold them. So each row gets a new id,
 *   one more than the table's highest (AUTOINCREMENT's counter included), and every reference follows the
 *   map: an owner's user and teams, a credential's user, install and private app; in the account's data, a
 *   record's `hubspot_owner_id` and a blog post's `author_user_id` (src/services/testkit/import.ts). The
 *   answer's `ids` gives each map.
 * - **The target's own rows stay, and take the export's of the same key**: a user of the same email (and so
 *   its owner), a team of the same name, an install of the same app, a private app of the target's own id (its
 *   own export given back) map onto the target's row, which keeps its values; the others are added. A credential of a row mapped so is not
 *   added (the row has its own), and is counted as skipped: an account reset and given its own export back
 *   keeps its people and tokens as they are.
 * - **Secrets do not come back**: an export holds no password or token hash. Users come back unable to sign
 *   in (no password, as a user made without one), and each credential comes back as a row no token opens (its
 *   key is `imported:<uuid>`, which no SHA-256 of a token is): its kind, scopes, expiry and what it belongs to
 *   are kept, and the integrator gets new tokens (a private app's new token, OAuth again).
 * - **The account's settings** (name, add-ons, rate limit, time zone, currencies) are the export's; its
 *   portalId, database, status, creation time and accountType stay the target's (importing into a test
 *   account keeps the test kit's controls).
 * - An install names an app of this deployment (apps are their developers', not in an export): an unknown
 *   app is a 400 naming the line.
 *
 * Written in one control-plane batch, with the statements that put things back if the data's batch fails.
 */
import type { ErrorDetail } from "../../lib/errors";

export const PEOPLE_TABLES = ["accounts", "users", "owners", "teams", "private_apps", "installs", "credentials"] as const;
type PeopleTable = (typeof PEOPLE_TABLES)[number];

export interface Line {
  line: number;
  row: Record<string, unknown>;
}

/** Each table's id column and the counter it grows from. */
const ID: Record<Exclude<PeopleTable, "accounts" | "credentials">, string> = { users: "user_id", owners: "owner_id", teams: "team_id", private_apps: "id", installs: "id" };
const SETTINGS = ["name", "addons", "rate_limit", "time_zone", "company_currency", "additional_currencies"] as const;

const lineError = (line: number, message: string): ErrorDetail => ({ message: `line ${line}: ${message}`, code: "INVALID_LINE", in: "body", context: { line } });

export type IdMaps = Record<keyof typeof ID, Map<number, number>>;

/** Reads what the target holds and plans the rows: statements to write them and to take them back, and the id maps. */
export async function planPeople(control: D1Database, portalId: number, lines: Map<PeopleTable, Line[]>, errors: ErrorDetail[]) {
  const get = (t: PeopleTable) => lines.get(t) ?? [];
  const accountsRows = get("accounts");
  if (accountsRows.length > 1) errors.push(lineError(accountsRows[1]!.line, "an export holds one accounts row"));
  const appIds = [...new Set(get("installs").map((l) => Number(l.row.app_id)))];
  const tables = Object.keys(ID) as (keyof typeof ID)[];
  const [tops, users, teams, installs, owners, privateApps, apps, account] = await control.batch<Record<string, unknown>>([
    control.prepare(
      `select ${tables.map((t) => `max(coalesce((select seq from sqlite_sequence where name = '${t}'), 0), coalesce((select max(${ID[t]}) from ${t}), 0)) as ${t}`).join(", ")}`,
    ),
    control.prepare("select user_id as id, email as k from users where portal_id = ?1").bind(portalId),
    control.prepare("select team_id as id, name as k from teams where portal_id = ?1").bind(portalId),
    control.prepare("select id, app_id as k from installs where portal_id = ?1").bind(portalId),
    control.prepare("select owner_id as id, user_id as k from owners where portal_id = ?1").bind(portalId),
    control.prepare("select id, id as k from private_apps where portal_id = ?1").bind(portalId),
    control.prepare("select app_id as id from apps where app_id in (select value from json_each(?1))").bind(JSON.stringify(appIds)),
    control.prepare(`select ${SETTINGS.join(", ")} from accounts where portal_id = ?1`).bind(portalId),
  ]);
  const top = tops!.results[0] as Record<keyof typeof ID, number>;
  const next = Object.fromEntries(tables.map((t) => [t, Number(top[t])])) as Record<keyof typeof ID, number>;
  const held = (r: D1Result<Record<string, unknown>>) => new Map(r.results.map((x) => [String(x.k), Number(x.id)]));
  const heldUsers = held(users!);
  const heldTeams = held(teams!);
  const heldInstalls = held(installs!);
  const heldOwners = held(owners!);
  const heldPrivateApps = held(privateApps!);
  /** Exported ids mapped onto the target's own rows: their credentials are the target's, not added again. */
  const merged = new Set<string>();
  const knownApps = new Set(apps!.results.map((a) => Number(a.id)));

  const maps: IdMaps = { users: new Map(), owners: new Map(), teams: new Map(), private_apps: new Map(), installs: new Map() };
  const inserts = new Map<PeopleTable, Record<string, unknown>[]>();
  const add = (t: PeopleTable, row: Record<string, unknown>) => inserts.set(t, [...(inserts.get(t) ?? []), row]);
  /** The target's row of the same key, or a new id; the row is inserted only with a new id. */
  const place = (t: keyof typeof ID, l: Line, same: number | undefined) => {
    const old = Number(l.row[ID[t]]);
    if (maps[t].has(old)) errors.push(lineError(l.line, `${t} ${old} is in the export twice`));
    const id = same ?? ++next[t];
    maps[t].set(old, id);
    if (same !== undefined) merged.add(`${t}:${old}`);
    if (same === undefined) add(t, { ...l.row, [ID[t]]: id, portal_id: portalId });
  };
  for (const l of get("users")) place("users", l, heldUsers.get(String(l.row.email)));
  for (const l of get("teams")) place("teams", l, heldTeams.get(String(l.row.name)));
  // A private app has no key but its id: the target's own (its own export given back) is itself.
  for (const l of get("private_apps")) place("private_apps", l, heldPrivateApps.get(String(l.row.id)));
  for (const l of get("installs")) {
    if (!knownApps.has(Number(l.row.app_id))) errors.push(lineError(l.line, `app ${String(l.row.app_id)} of the install is not an app of this deployment`));
    place("installs", l, heldInstalls.get(String(l.row.app_id)));
  }
  // A reference to a row the export does not hold (a deleted team, say) is dropped.
  const mapped = (t: keyof typeof ID, v: unknown) => (v === null || v === undefined ? null : (maps[t].get(Number(v)) ?? null));
  for (const l of get("owners")) {
    // An archived owner outlives its deleted user (docs/reference/owners.md): it gets a user id no user has.
    const userId = mapped("users", l.row.user_id) ?? ++next.users;
    place("owners", l, heldOwners.get(String(userId)));
    const row = inserts.get("owners")?.at(-1);
    if (row && row.owner_id === maps.owners.get(Number(l.row.owner_id))) {
      row.user_id = userId;
      row.primary_team_id = mapped("teams", l.row.primary_team_id);
      const secondary = typeof l.row.secondary_team_ids === "string" ? (JSON.parse(l.row.secondary_team_ids) as number[]) : [];
      row.secondary_team_ids = JSON.stringify(secondary.flatMap((t) => mapped("teams", t) ?? []));
    }
  }
  let kept = 0;
  for (const l of get("credentials")) {
    if (merged.has(`users:${String(l.row.user_id)}`) || merged.has(`installs:${String(l.row.install_id)}`) || merged.has(`private_apps:${String(l.row.private_app_id)}`)) {
      kept++;
      continue;
    }
    add("credentials", {
      ...l.row,
      token_hash: `imported:${crypto.randomUUID()}`,
      family_id: null,
      portal_id: portalId,
      user_id: mapped("users", l.row.user_id),
      install_id: mapped("installs", l.row.install_id),
      private_app_id: mapped("private_apps", l.row.private_app_id),
    });
  }

  const write: D1PreparedStatement[] = [];
  const undo: D1PreparedStatement[] = [];
  const exported = accountsRows[0]?.row;
  if (exported) {
    const settings = (row: Record<string, unknown>) => SETTINGS.map((c) => row[c] ?? null);
    const set = `update accounts set ${SETTINGS.map((c, k) => `${c} = ?${k + 2}`).join(", ")} where portal_id = ?1`;
    write.push(control.prepare(set).bind(portalId, ...settings(exported)));
    undo.push(control.prepare(set).bind(portalId, ...settings(account!.results[0] ?? {})));
  }
  // Users, teams, private apps and installs before the rows naming them (owners, credentials).
  for (const t of ["users", "teams", "private_apps", "installs", "owners", "credentials"] as const) {
    const rows = inserts.get(t);
    if (!rows?.length) continue;
    const cols = Object.keys(rows[0]!);
    write.push(
      control
        .prepare(`insert into ${t} (${cols.map((c) => `"${c}"`).join(", ")}) select ${cols.map((_, k) => `j.value ->> ${k}`).join(", ")} from json_each(?1) j order by j.key`)
        .bind(JSON.stringify(rows.map((r) => cols.map((c) => r[c] ?? null)))),
    );
  }
  // Taking back: the credentials first (they name the rest), the rows made, by their new ids.
  for (const t of ["credentials", "owners", "installs", "private_apps", "teams", "users"] as const) {
    const rows = inserts.get(t);
    if (!rows?.length) continue;
    const key = t === "credentials" ? "token_hash" : ID[t];
    undo.push(control.prepare(`delete from ${t} where ${key} in (select value from json_each(?1))`).bind(JSON.stringify(rows.map((r) => r[key]))));
  }
  const counts = Object.fromEntries([...PEOPLE_TABLES].flatMap((t) => (get(t).length ? [[t, get(t).length - (t === "credentials" ? kept : 0)]] : [])).filter(([, n]) => n));
  const ids = Object.fromEntries(tables.map((t) => [t, Object.fromEntries([...maps[t]].map(([a, b]) => [String(a), b]))]));
  return { write, undo, maps, counts, ids, skipped: kept ? { credentials: kept } : {} };
}
