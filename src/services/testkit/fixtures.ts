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
 * Beside the records: timeline events on them (fixture-timeline.ts), blog posts (fixture-blog.ts), both in
 * the same batch, and webhook subscriptions of an app installed in the account (fixture-subscriptions.ts),
 * which live in the control plane: in the same batch when the account's data is there too, else written just
 * before it and put back as they were if it fails.
 *
 * A fixture is a data load, not a change an integrator made: it sends no webhook events (as the real
 * service's imports of test data do not reach an app's subscriptions).
 */
import type { z } from "zod";
import type { Db } from "../../db/client";
import { CONTROL_SHARD } from "../../db/shards";
import { faultPoint } from "../../lib/fault-seam";
import { isBuiltInType, type ObjectType } from "../../db/tables/crm";
import { ApiError, type ErrorDetail } from "../../lib/errors";
import { fixtureBody, MAX_FIXTURE_RECORDS, type FixtureInput } from "../../schemas/testkit";
import { listTypes } from "../crm/association-definitions";
import { recordsById } from "../crm/batch";
import { checkRequired, resolveObjectType } from "../crm/object-types";
import { emailOf } from "../crm/records";
import { checkValues } from "../crm/values";
import { account } from "./snapshots";
import { DEFAULT_BLOG, planPosts, POST_COLUMNS } from "./fixture-blog";
import { planSubscriptions, subscriptionStatements } from "./fixture-subscriptions";
import { planTimeline } from "./fixture-timeline";
import { caught, chunks, jsonPath, problem, problems } from "./problems";
import { recordHolders } from "../timeline/holders";

export { chunks, jsonPath } from "./problems";

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
async function plan(db: Db, control: Db, portalId: number, input: unknown, now: number) {
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

  // After the records: an event's objectProperty values are stamped on its record's properties.
  const events = await planTimeline(db, control, portalId, doc.timelineEvents, refs, (index) => planned[index]!.properties, errors, now);
  const posts = await planPosts(db, portalId, doc.blogPosts, (ref) => refs.has(ref), errors, now);
  const subscriptions = await planSubscriptions(control, portalId, doc.subscriptions, errors);

  if (errors.length) throw problems(errors);
  return { doc, groups, planned, refs, links, events, posts, subscriptions };
}

const COUNTER = "(select seq from id_sequences where name = 'crm_objects')";
const EVENT_COUNTER = "(select seq from id_sequences where name = 'timeline_events')";
const POST_COUNTER = "(select seq from id_sequences where name = 'blog_posts')";

/** Checks the document, then writes it in one batch; answers each ref's id and the counts. */
export async function loadFixture(env: Env, control: Db, openShard: (shard: string | null) => Db, portalId: number, input: unknown, realNow: number) {
  const { row } = await account(env, control, portalId);
  const now = realNow + row.clockOffsetMs; // records are stamped by the account's clock (clock.ts)
  const db = openShard(row.shard);
  const d1 = db.$client;
  const { groups, planned, refs, links, events, posts, subscriptions } = await plan(db, control, portalId, input, now);

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
  // Timeline events after the records they are on: their record's id is the first record's plus its place.
  const eventInserts = chunks(events.map((e) => [e.eventTypeId, e.eventId, e.objectType, e.index, e.timestamp, JSON.stringify(e.properties), e.extraData, e.iframe])).map((chunk) =>
    d1
      .prepare(
        `insert into timeline_events (row_id, portal_id, event_type_id, event_id, object_type, object_id, timestamp, properties, extra_data, timeline_iframe, created_at, updated_at)
         select ${EVENT_COUNTER} + row_number() over (order by j.key), ?1, j.value ->> 0, j.value ->> 1, j.value ->> 2, ${idOf("j.value ->> 3")}, j.value ->> 4, j.value ->> 5, j.value ->> 6, j.value ->> 7, ?3, ?3
         from ${first}, json_each(?4) j order by j.key`,
      )
      .bind(portalId, n, now, JSON.stringify(chunk)),
  );
  const blogInserts = posts.makeDefaultBlog
    ? [
        d1
          .prepare(
            `insert into blogs (id, portal_id, name, slug, html_title, is_default, created_at, updated_at)
             values ((select seq + 1 from id_sequences where name = 'blogs'), ?1, ?2, ?3, ?2, 1, ?4, ?4) on conflict do nothing`,
          )
          .bind(portalId, DEFAULT_BLOG.name, DEFAULT_BLOG.slug, now),
      ]
    : [];
  const postInserts = chunks(posts.rows).map((chunk) =>
    d1
      .prepare(
        `insert into blog_posts (id, portal_id, ${POST_COLUMNS.join(", ")}, created_at, updated_at)
         select ${POST_COUNTER} + row_number() over (order by j.key), ?1,
           coalesce(j.value ->> 0, (select id from blogs where portal_id = ?1 and is_default = 1)),
           ${POST_COLUMNS.slice(1).map((_, k) => `j.value ->> ${k + 1}`).join(", ")}, ?2, ?2
         from json_each(?3) j order by j.key`,
      )
      .bind(portalId, now, JSON.stringify(chunk)),
  );
  const data = [d1.prepare(`select ${COUNTER} as seq, ${POST_COUNTER} as posts`), ...inserts, ...linkInserts, ...labelInserts, ...eventInserts, ...blogInserts, ...postInserts];

  // Subscriptions are the control plane's: in the same batch when the account's data is there too; else
  // written first, and put back as they were if the data's batch fails.
  const subs = subscriptionStatements(control.$client, subscriptions, now);
  // Before the events, as on the write path (src/services/timeline/holders.ts).
  if (events.length) await recordHolders(control, portalId, events.map((e) => e.eventTypeId));
  let results: D1Result[];
  if (!subscriptions.length) results = await d1.batch(data);
  else if (row.shard === null || row.shard === CONTROL_SHARD) results = await d1.batch([...data, ...subs.write]);
  else {
    const [made] = await control.$client.batch(subs.write);
    try {
      faultPoint("fixture:write", [String(portalId)]);
      results = await d1.batch(data);
    } catch (err) {
      await control.$client.batch(subs.undo((made!.results as { id: number }[]).map((r) => r.id)));
      throw err;
    }
  }
  const counter = results[0]!.results[0] as { seq: number; posts: number };
  const seq = Number(counter.seq);

  const counts: Record<string, number> = {};
  for (const g of groups) counts[g.key] = (counts[g.key] ?? 0) + g.records.length;
  counts.associations = links.length;
  if (events.length) counts.timelineEvents = events.length;
  if (posts.rows.length) counts.blogPosts = posts.rows.length;
  if (subscriptions.length) counts.subscriptions = subscriptions.length;
  return {
    refs: Object.fromEntries([
      ...[...refs].map(([ref, r]) => [ref, String(seq + 1 + r.index)]),
      ...[...posts.refs].map(([ref, k]) => [ref, String(Number(counter.posts) + 1 + k)]),
    ]),
    counts,
  };
}
