/**
 * @module Fixtures of a test account (docs/reference/testkit.md, "Fixtures"): a JSON document of records by
 * object type and associations between them by ref, loaded in one go.
 *
 * The document is checked whole before anything is written, with the checks a v3 create applies to each
 * record (property names and values, src/services/crm/values.ts; a custom type's required properties; one
 * contact per email), and every problem is reported at once by its JSON path
 * (`records.contacts[3].properties.email`). Then everything is written in ONE db.batch, all of it or none.
 *
 * D1 takes at most 100 bound parameters a statement (platform limits), so rows never travel as parameters
 * one by one: each statement inserts a chunk of rows given as one JSON parameter (`json_each`), as the
 * ecommerce sync writes its records. Ids come from the database's id counter (src/db/id-ranges.ts), in
 * document order: a batch is one transaction, so the k-th record of the document gets the counter read by
 * the batch's first statement plus k.
 *
 * A fixture is a data load, not a change an integrator made: it sends no webhook events (as the real
 * service's imports of test data do not reach an app's subscriptions).
 */
import type { z } from "zod";
import type { Db } from "../../db/client";
import { isBuiltInType, type ObjectType } from "../../db/tables/crm";
import { ApiError, badRequest, type ErrorDetail } from "../../lib/errors";
import { fixtureBody, MAX_FIXTURE_RECORDS, type FixtureInput } from "../../schemas/testkit";
import { listTypes } from "../crm/association-definitions";
import { recordsById } from "../crm/batch";
import { checkRequired, resolveObjectType } from "../crm/object-types";
import { emailOf } from "../crm/records";
import { checkValues } from "../crm/values";
import { account } from "./snapshots";

/** Rows per insert statement: one JSON parameter each, well under D1's statement and value size limits. */
const CHUNK_ROWS = 500;
const CHUNK_BYTES = 512 * 1024;
/** Problems listed in a 400 (the message says how many there were in all). */
const MAX_LISTED = 500;

const NOT_IN_A_FIXTURE: Record<string, string> = {
  timelineEvents: "timeline events belong to an app's event types: the app sends them (POST /integrators/timeline/v3/events) once the fixture's records exist",
  blogPosts: "blog posts are made through the blog APIs (POST /cms/v3/blogs/posts), not by a fixture",
  subscriptions: "webhook subscriptions are an app's, not an account's: POST /webhooks/v3/{appId}/subscriptions with the app's developer key",
};

/** A JSON path as the docs write it: `records.contacts[3].properties.email`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, k) => (typeof k === "number" ? `${out}[${k}]` : out ? `${out}.${String(k)}` : String(k)), "");
}

const problem = (path: string, message: string, code = "INVALID_VALUE"): ErrorDetail => ({ message: `${path}: ${message}`, code, in: "body", context: { propertyName: [path] } });

/** The 400 naming every problem (the first MAX_LISTED of them). */
function problems(list: ErrorDetail[]): ApiError {
  const shown = list.slice(0, MAX_LISTED);
  const head = shown.slice(0, 3).map((e) => e.message).join("; ");
  const more = list.length > 3 ? ` (${list.length} problems in all${list.length > MAX_LISTED ? `, the first ${MAX_LISTED} listed` : ""})` : "";
  return badRequest(`The fixture was not loaded: ${head}${more}`, { errors: shown });
}

/** The errors a check threw as its 400, each field renamed to its path in the document. */
function caught(err: unknown): ErrorDetail[] {
  if (!(err instanceof ApiError) || err.status !== 400) throw err;
  const details = err.init.errors?.length ? err.init.errors : [{ message: err.message, in: "body" }];
  return details.map((d) => {
    const path = (d.context?.propertyName as string[] | undefined)?.[0];
    return path ? { ...d, message: d.message.startsWith(path) ? d.message : `${path}: ${d.message}` } : d;
  });
}

interface TypedRecords {
  key: string;
  type: ObjectType;
  records: FixtureInput["records"][string];
}

/** One record to insert: where it is in the document, and its columns. */
interface Planned {
  ref: string | undefined;
  type: ObjectType;
  properties: Record<string, string>;
  email: string | null;
}

/** Parses and checks the document whole: the plan of what to write, or a 400 naming every problem. */
async function plan(db: Db, control: Db, portalId: number, input: unknown) {
  // Parts of an account a fixture does not make, each with where it is made instead.
  const elsewhere = Object.entries(NOT_IN_A_FIXTURE).filter(([k]) => typeof input === "object" && input !== null && k in input);
  if (elsewhere.length) throw problems(elsewhere.map(([k, why]) => problem(k, why, "NOT_IN_A_FIXTURE")));
  const parsed = fixtureBody.safeParse(input);
  if (!parsed.success) throw problems(parsed.error.issues.map((i: z.core.$ZodIssue) => problem(jsonPath(i.path) || "body", i.message, i.code.toUpperCase())));
  const doc = parsed.data;
  const errors: ErrorDetail[] = [];

  const total = Object.values(doc.records).reduce((n, list) => n + list.length, 0);
  if (total > MAX_FIXTURE_RECORDS) throw problems([problem("records", `at most ${MAX_FIXTURE_RECORDS} records in one fixture; this one has ${total}`, "TOO_BIG")]);

  const groups: TypedRecords[] = [];
  for (const [key, records] of Object.entries(doc.records)) {
    try {
      groups.push({ key, type: isBuiltInType(key) ? key : await resolveObjectType(db, portalId, key), records });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
      errors.push(problem(`records.${key}`, `${key} is not an object type of this account: a built-in type, or a custom type by its id (2-<n>), fully qualified name or name`, "UNKNOWN_OBJECT_TYPE"));
    }
  }

  // Refs name one record each, across types.
  const refs = new Map<string, { type: ObjectType; index: number }>();
  const planned: Planned[] = [];
  const emails = new Map<string, string>();
  for (const g of groups) {
    const at = (i: number) => `records.${g.key}[${i}].`;
    g.records.forEach((r, i) => {
      if (r.ref !== undefined) {
        if (refs.has(r.ref)) errors.push(problem(`${at(i)}ref`, `the ref ${JSON.stringify(r.ref)} names another record of the document`, "DUPLICATE_REF"));
        else refs.set(r.ref, { type: g.type, index: planned.length });
      }
      try {
        checkRequired(g.type, r.properties, at(i));
      } catch (err) {
        errors.push(...caught(err));
      }
      const email = emailOf(g.type, r.properties);
      if (email) {
        const first = emails.get(email);
        if (first) errors.push(problem(`${at(i)}properties.email`, `the same email as ${first}properties.email: an account holds one contact per email`, "DUPLICATE_EMAIL"));
        else emails.set(email, at(i));
      }
      planned.push({ ref: r.ref, type: g.type, properties: Object.fromEntries(Object.entries(r.properties).filter(([, v]) => v !== "")), email });
    });
    try {
      await checkValues({ db, control }, portalId, g.type, g.records.map((r, i) => ({ properties: r.properties, at: at(i) })));
    } catch (err) {
      errors.push(...caught(err));
    }
  }
  // An email a contact of the account holds already: the v3 create's 409, here one more problem of the document.
  if (emails.size) {
    for (const [email, holder] of await recordsById(db, portalId, "contacts", "email", [...emails.keys()])) {
      errors.push(problem(`${emails.get(email)}properties.email`, `contact ${holder.id} of the account has this email already: an account holds one contact per email`, "DUPLICATE_EMAIL"));
    }
  }

  // Associations: both refs known, and the pair associable (with the label, when one is named).
  const links: { from: number; to: number; fromType: ObjectType; toType: ObjectType; typeId: number | null; inverseTypeId: number | null }[] = [];
  const pairTypes = new Map<string, Awaited<ReturnType<typeof listTypes>>>();
  for (const [i, a] of doc.associations.entries()) {
    const from = refs.get(a.from);
    const to = refs.get(a.to);
    if (!from) errors.push(problem(`associations[${i}].from`, `no record of the document has the ref ${JSON.stringify(a.from)}`, "UNKNOWN_REF"));
    if (!to) errors.push(problem(`associations[${i}].to`, `no record of the document has the ref ${JSON.stringify(a.to)}`, "UNKNOWN_REF"));
    if (!from || !to) continue;
    const pair = `${from.type}>${to.type}`;
    if (!pairTypes.has(pair)) pairTypes.set(pair, await listTypes(db, portalId, from.type, to.type));
    const types = pairTypes.get(pair)!;
    if (!types.some((t) => t.label === null)) {
      errors.push(problem(`associations[${i}]`, `${from.type} cannot be associated with ${to.type}`, "INVALID_ASSOCIATION"));
      continue;
    }
    const labelled = a.label === undefined ? undefined : types.find((t) => t.label === a.label);
    if (a.label !== undefined && !labelled) {
      const known = types.flatMap((t) => (t.label === null ? [] : [JSON.stringify(t.label)]));
      errors.push(problem(`associations[${i}].label`, `no label ${JSON.stringify(a.label)} from ${from.type} to ${to.type}; the pair's labels: ${known.join(", ") || "(none)"}`, "UNKNOWN_LABEL"));
      continue;
    }
    links.push({ from: from.index, to: to.index, fromType: from.type, toType: to.type, typeId: labelled?.typeId ?? null, inverseTypeId: labelled?.inverseTypeId ?? null });
  }

  if (errors.length) throw problems(errors);
  return { doc, groups, planned, refs, links };
}

/** Splits rows into chunks of at most CHUNK_ROWS rows and about CHUNK_BYTES of JSON. */
export function chunks<T>(rows: T[], maxRows = CHUNK_ROWS, maxBytes = CHUNK_BYTES): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = JSON.stringify(row).length;
    if (current.length && (current.length >= maxRows || bytes + size > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

const COUNTER = "(select seq from id_sequences where name = 'crm_objects')";

/** Checks the document, then writes it in one batch; answers each ref's id and the counts. */
export async function loadFixture(env: Env, control: Db, openShard: (shard: string | null) => Db, portalId: number, input: unknown, realNow: number) {
  const { row } = await account(env, control, portalId);
  const now = realNow + row.clockOffsetMs; // records are stamped by the account's clock (clock.ts)
  const db = openShard(row.shard);
  const d1 = db.$client;
  const { groups, planned, refs, links } = await plan(db, control, portalId, input);

  const n = planned.length;
  const records = chunks(planned.map((p) => [p.type, JSON.stringify(p.properties), p.email, crypto.randomUUID()]));
  // Ids in document order: the counter as the statement starts, plus the row's place in its chunk.
  const inserts = records.map((chunk) =>
    d1
      .prepare(
        `insert into crm_objects (id, portal_id, object_type, properties, email, guid, archived, created_at, updated_at)
         select ${COUNTER} + row_number() over (order by j.key), ?1, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, 0, ?2, ?2
         from json_each(?3) j order by j.key`,
      )
      .bind(portalId, now, JSON.stringify(chunk)),
  );
  // After the inserts the counter is the last record's id: the k-th record (from 0) is counter - n + 1 + k.
  // The first id is read once per statement (a one-row join), not once per row.
  const first = `(select seq - ?2 + 1 as id from id_sequences where name = 'crm_objects') b`;
  const idOf = (k: string) => `b.id + (${k})`;
  const pairs = chunks(links.flatMap((l) => [[l.from, l.toType, l.to], [l.to, l.fromType, l.from]]));
  const linkInserts = pairs.map((chunk) =>
    d1
      .prepare(`insert or ignore into crm_associations (portal_id, from_id, to_type, to_id) select ?1, ${idOf("j.value ->> 0")}, j.value ->> 1, ${idOf("j.value ->> 2")} from ${first}, json_each(?3) j`)
      .bind(portalId, n, JSON.stringify(chunk)),
  );
  const labelled = chunks(
    links.flatMap((l) =>
      l.typeId === null ? [] : [[l.from, l.toType, l.to, l.typeId], ...(l.inverseTypeId === null ? [] : [[l.to, l.fromType, l.from, l.inverseTypeId]])],
    ),
  );
  const labelInserts = labelled.map((chunk) =>
    d1
      .prepare(
        `insert or ignore into crm_association_types (portal_id, from_id, to_type, to_id, type_id)
         select ?1, ${idOf("j.value ->> 0")}, j.value ->> 1, ${idOf("j.value ->> 2")}, j.value ->> 3 from ${first}, json_each(?3) j`,
      )
      .bind(portalId, n, JSON.stringify(chunk)),
  );
  const [counter] = await d1.batch([d1.prepare(`select ${COUNTER} as seq`), ...inserts, ...linkInserts, ...labelInserts]);
  const seq = Number((counter!.results[0] as { seq: number }).seq);

  const counts: Record<string, number> = {};
  for (const g of groups) counts[g.key] = (counts[g.key] ?? 0) + g.records.length;
  counts.associations = links.length;
  return { refs: Object.fromEntries([...refs].map(([ref, r]) => [ref, String(seq + 1 + r.index)])), counts };
}
