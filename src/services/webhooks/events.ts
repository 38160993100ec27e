/**
 * @module The outbox statements of a write (docs/explanation/storage.md, "Nothing lost between a change and its event"). A write describes what it
 * changed (`RecordChange`), and `webhookEventStatements` returns the statements that add the matching
 * events to `webhook_outbox`, for the caller to append to the SAME D1 batch as the change: both are
 * committed or neither is. No targets (no app with settings and an active subscription): no statement.
 *
 * A record created in the same batch has no id yet: `{ fromEnd: k }` names the k-th last crm_objects row
 * inserted, read from the database's id counter (src/db/id-ranges.ts: consecutive ids, the last one in
 * id_sequences; AUTOINCREMENT's sqlite_sequence on a database without counters), so the outbox statement
 * must come after the insert with no other crm_objects insert in between. The events' own ids (eventId) come
 * from the same kind of counter, so they stay unique across shards when an account moves.
 */
import { sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { idCounter, newId } from "../../db/id-ranges";
import type { ObjectType } from "../../db/tables/crm";
import { webhookOutbox } from "../../db/tables/webhooks";
import { rawStatement } from "../../db/d1-raw";
import { EVENT_OBJECT, isPropertyChange, subscriptionKey } from "../../schemas/webhooks/event-types";
import { typeIdOf } from "../../schemas/crm/associations-v4";
import type { Outbox, OutboxSource, WebhookTarget } from "./targets";
import { sideOf, type Side } from "./association-events";

type Props = Record<string, string>;
export type ObjectRef = number | { fromEnd: number };

export type RecordChange =
  | { kind: "created"; objectType: ObjectType; id: ObjectRef; properties: Props }
  | { kind: "updated"; objectType: ObjectType; id: number; before: Props; after: Props }
  | { kind: "deleted"; objectType: ObjectType; id: number }
  | { kind: "merged"; objectType: ObjectType; id: number; mergedIds: number[]; moved: number; before: Props; after: Props }
  /** A GDPR delete: the record is gone for good. */
  | { kind: "purged"; objectType: ObjectType; id: number }
  /** A record created with associations (`associations` of a create): each is new, so each emits. */
  | { kind: "associated"; objectType: ObjectType; id: ObjectRef; to: { type: ObjectType; id: number }[] };

/** One outbox row as a JSON object: app, subscription, type, object id (or offset from the end), extra fields. */
interface Row {
  a: number;
  s: number;
  t: string;
  o?: number;
  c?: number;
  x?: Record<string, unknown>;
  /** A field of `x` that holds the id of the record created `n[1]`-th from the end of the batch (filled in SQL). */
  n?: [NewIdField, number];
}
type NewIdField = "fromObjectId" | "toObjectId";

const MAX_ROWS_PER_STATEMENT = 1000;
/** drizzle binds each value of a multi-row VALUES: up to 9 per row, within D1's 100 bound parameters. */
const MAX_ROWS_PER_BUILDER = 10;

/** The id of the last crm_objects row inserted (AUTOINCREMENT: the table's sequence). */
/** The id of the last crm_objects row inserted: the database's id counter, or AUTOINCREMENT's on a database without counters. */
const LAST_CRM_ID = sql`coalesce(${idCounter("crm_objects")}, (select seq from sqlite_sequence where name = 'crm_objects'))`;

function ref(id: ObjectRef): Pick<Row, "o" | "c"> {
  return typeof id === "number" ? { o: id } : { c: id.fromEnd };
}

/**
 * propertyChange rows for the subscribed properties whose value differs between before and after. `key` is
 * the subscriptions' stored type, `type` the event's `subscriptionType`, `x` fields every event of it carries.
 */
function propertyRows(targets: WebhookTarget[], key: string, type: string, id: ObjectRef, before: Props, after: Props, x: Row["x"] = {}): Row[] {
  return targets
    .filter((t) => t.eventType === key && t.propertyName !== null && (before[t.propertyName] ?? "") !== (after[t.propertyName] ?? ""))
    .map((t) => ({ a: t.appId, s: t.subscriptionId, t: type, ...ref(id), x: { ...x, propertyName: t.propertyName, propertyValue: after[t.propertyName!] ?? "" } }));
}

/**
 * A change's event types: `contact.creation` for a type with classic subscription types; otherwise (activities
 * and leads) the generic `object.creation` of its object type id, which every event of it carries as
 * `objectTypeId`, as the real service's generic events do.
 */
function namesOf(type: ObjectType): { key: (kind: string) => string; type: (kind: string) => string; x?: Row["x"] } {
  const object = EVENT_OBJECT[type];
  if (object) return { key: (k) => `${object}.${k}`, type: (k) => `${object}.${k}` };
  const objectTypeId = typeIdOf(type);
  return { key: (k) => subscriptionKey(`object.${k}`, objectTypeId), type: (k) => `object.${k}`, x: { objectTypeId } };
}

/**
 * The associationChange rows of a record created with associations: both sides of each association
 * (association-events.ts says how events of association writes are named); the new record's id, not known
 * yet, is filled in by the statement.
 */
function associatedRows(targets: WebhookTarget[], c: Extract<RecordChange, { kind: "associated" }>): Row[] {
  const own = typeof c.id === "number" ? c.id : 0;
  const unique = [...new Map(c.to.map((o) => [`${o.type}/${o.id}`, o])).values()];
  return unique.flatMap((other) => {
    const rows: Row[] = [];
    const add = (side: Side | null, objectId: ObjectRef, from: number, to: number, field: NewIdField) => {
      if (!side) return;
      for (const t of targets.filter((t) => t.eventType === side.key)) {
        const x = { ...side.x, fromObjectId: from, toObjectId: to, associationRemoved: false, isPrimaryAssociation: false };
        rows.push({ a: t.appId, s: t.subscriptionId, t: side.type, ...ref(objectId), x, ...(typeof c.id === "number" ? {} : { n: [field, c.id.fromEnd] as [NewIdField, number] }) });
      }
    };
    add(sideOf(c.objectType, other.type), c.id, own, other.id, "fromObjectId");
    add(sideOf(other.type, c.objectType), other.id, other.id, own, "toObjectId");
    return rows;
  });
}

function rowsOf(targets: WebhookTarget[], c: RecordChange): Row[] {
  if (c.kind === "associated") return associatedRows(targets, c);
  const names = namesOf(c.objectType);
  const plain = (kind: string, x?: Row["x"]) =>
    targets.filter((t) => t.eventType === names.key(kind)).map((t) => {
      const extra = { ...names.x, ...x };
      return { a: t.appId, s: t.subscriptionId, t: names.type(kind), ...ref(c.id), ...(Object.keys(extra).length ? { x: extra } : {}) };
    });
  const changes = (before: Props, after: Props) => propertyRows(targets, names.key("propertyChange"), names.type("propertyChange"), c.id, before, after, names.x);
  switch (c.kind) {
    case "created":
      return [...plain("creation"), ...changes({}, c.properties)];
    case "updated":
      return changes(c.before, c.after);
    case "deleted":
      return plain("deletion");
    case "merged":
      // The merge fields of the real service's changelog: the survivor keeps its id, so it is also the new one.
      return [
        ...plain("merge", { primaryObjectId: c.id, mergedObjectIds: c.mergedIds, newObjectId: c.id, numberOfPropertiesMoved: c.moved }),
        ...changes(c.before, c.after),
      ];
    case "purged":
      // "The privacyDeletion event will also trigger the normal contact.delete event" (the real service's
      // changelog, "Webhooks now support privacy-compliant contact deletions"): both, deletion first.
      return [...plain("deletion"), ...plain("privacyDeletion")];
  }
}

/** The outbox rows of the changes (exported for tests and counts). */
export function webhookEventRows(outbox: Outbox, changes: RecordChange[]): Row[] {
  if (!outbox.targets.length) return [];
  const relevant = outbox.targets.filter((t) => !isPropertyChange(t.eventType) || t.propertyName !== null);
  return changes.flatMap((c) => rowsOf(relevant, c));
}

export type { OutboxSource };

/** The statements that add the changes' events to the outbox; append them to the change's own batch. */
export async function webhookEventStatements(db: Db, source: OutboxSource, changes: RecordChange[]): Promise<D1PreparedStatement[]> {
  const outbox = await source;
  if (!outbox) return [];
  const rows = webhookEventRows(outbox, changes);
  const out: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += MAX_ROWS_PER_STATEMENT) {
    const json = JSON.stringify(rows.slice(i, i + MAX_ROWS_PER_STATEMENT));
    out.push(
      rawStatement(
        db,
        sql`insert into webhook_outbox (id, portal_id, app_id, subscription_id, subscription_type, object_id, occurred_at, change_source, extra)
          select ${idCounter("webhook_outbox")} + row_number() over (order by j.key), ${outbox.portalId}, j.value->>'a', j.value->>'s', j.value->>'t',
            coalesce(j.value->>'o', ${LAST_CRM_ID} - (j.value->>'c')),
            ${outbox.now}, ${outbox.source},
            iif(j.value->'n' is null, j.value->>'x', json_set(j.value->>'x', '$.' || (j.value->'n'->>0), ${LAST_CRM_ID} - (j.value->'n'->>1)))
          from json_each(${json}) j`,
      ),
    );
  }
  return out;
}

/**
 * The same rows as drizzle insert builders, for a write that runs a drizzle `db.batch` (a few rows each:
 * single-record writes); bulk writes use webhookEventStatements' one JSON parameter instead.
 */
export async function webhookEventItems(db: Db, source: OutboxSource, changes: RecordChange[]): Promise<BatchItem<"sqlite">[]> {
  const outbox = await source;
  if (!outbox) return [];
  const values = webhookEventRows(outbox, changes).map((r, i) => ({
    // All rows of one multi-row insert see the same counter: each takes its offset in its builder.
    id: newId("webhook_outbox", i % MAX_ROWS_PER_BUILDER),
    portalId: outbox.portalId,
    appId: r.a,
    subscriptionId: r.s,
    subscriptionType: r.t,
    objectId: r.o ?? sql<number>`${LAST_CRM_ID} - ${r.c ?? 0}`,
    occurredAt: outbox.now,
    changeSource: outbox.source,
    // The field name and offset come from this module (sql.raw keeps the row within its bound parameters).
    extra: r.n ? sql<string>`json_set(${JSON.stringify(r.x)}, ${sql.raw(`'$.${r.n[0]}'`)}, ${LAST_CRM_ID} - ${sql.raw(String(Math.trunc(r.n[1])))})` : r.x ? JSON.stringify(r.x) : null,
  }));
  const out: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < values.length; i += MAX_ROWS_PER_BUILDER) out.push(db.insert(webhookOutbox).values(values.slice(i, i + MAX_ROWS_PER_BUILDER)));
  return out;
}
