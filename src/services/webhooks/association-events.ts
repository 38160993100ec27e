/**
 * @module The `associationChange` events of an association write (docs/reference/webhooks.md "Association
 * changes"). The real service's event "fires for both sides of the association": one event per side, of
 * that side's object's subscription type (`contact.associationChange` for the contact, `company.…` for the
 * company; generic `object.associationChange` with `objectTypeId` for activities, leads and custom types;
 * products have none), each naming its own side first (`CONTACT_TO_COMPANY` from the contact,
 * `COMPANY_TO_CONTACT` from the company).
 *
 * Only changes emit: the statement reads, inside the write's own D1 batch and just BEFORE the write's
 * statements, which of the pairs are not associated yet (an add) or are (a removal), so re-adding an
 * association or removing a missing one emits nothing, and the events commit with the rows or not at all.
 * Pairs and targets are two JSON parameters: a fixed handful of bound parameters whatever the batch size.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawStatement } from "../../db/d1-raw";
import { idCounter } from "../../db/id-ranges";
import type { ObjectType } from "../../db/tables/crm";
import { associationChangeOf, EVENT_OBJECT, ASSOCIATION_EVENT_OBJECTS, subscriptionKey } from "../../schemas/webhooks/event-types";
import { typeIdOf } from "../../schemas/crm/associations-v4";
import type { OutboxSource, WebhookTarget } from "./targets";

/** How one side's events are named: the subscriptions' stored key, the event's type, and fields it always carries. */
export interface Side {
  key: string;
  type: string;
  x: Record<string, unknown>;
}

const singular = (type: ObjectType) => (type === "companies" ? "company" : type.replace(/s$/, ""));

/** `CONTACT_TO_COMPANY`: the real service's name of the pair seen from `from` (labelled pairs are named the same). */
export const associationTypeName = (from: ObjectType, to: ObjectType) => `${singular(from)}_TO_${singular(to)}`.toUpperCase();

/** The subscription names of `type`'s side of an association; null for products, which have no associationChange type. */
export function sideOf(type: ObjectType, other: ObjectType): Side | null {
  const object = EVENT_OBJECT[type];
  const associationType = associationTypeName(type, other);
  if (object) {
    if (!(ASSOCIATION_EVENT_OBJECTS as readonly string[]).includes(object)) return null;
    return { key: associationChangeOf(object), type: associationChangeOf(object), x: { associationType } };
  }
  const objectTypeId = typeIdOf(type);
  return { key: subscriptionKey("object.associationChange", objectTypeId), type: "object.associationChange", x: { objectTypeId, associationType } };
}

/** The targets of one side, as the statement's JSON rows (`d` 0: the from side, 1: the to side). */
function sideTargets(targets: WebhookTarget[], side: Side | null, d: 0 | 1) {
  if (!side) return [];
  return targets.filter((t) => t.eventType === side.key).map((t) => ({ a: t.appId, s: t.subscriptionId, t: side.type, d, x: JSON.stringify(side.x) }));
}

/** One pair of a write: `p` whether the write gives it the pair's primary type (adds only). */
export interface EventPair {
  f: number;
  t: number;
  p?: boolean;
}

/**
 * The statement adding the events of the pairs that change, to run in the write's batch before its own
 * statements. `primary` the pair's primary type ids of both directions (contact → company 1, company →
 * contact 2), read for a removal: the association was primary if it held either. No targets: no statement.
 */
export async function associationEventStatements(
  db: Db,
  source: OutboxSource,
  portalId: number,
  from: ObjectType,
  to: ObjectType,
  pairs: EventPair[],
  removed: boolean,
  primary: [number | null, number | null] = [null, null],
): Promise<D1PreparedStatement[]> {
  const outbox = await source;
  if (!outbox || !outbox.targets.length || !pairs.length) return [];
  const targets = [...sideTargets(outbox.targets, sideOf(from, to), 0), ...sideTargets(outbox.targets, sideOf(to, from), 1)];
  if (!targets.length) return [];
  const links = JSON.stringify(pairs.map((p) => ({ f: p.f, t: p.t, p: p.p ? 1 : 0 })));
  const held = sql`exists (select 1 from crm_associations a where a.portal_id = ${portalId} and a.from_id = j.value ->> 'f' and a.to_type = ${to} and a.to_id = j.value ->> 't')`;
  const isPrimary = removed
    ? sql`exists (select 1 from crm_association_types y where y.portal_id = ${portalId}
        and ((y.from_id = e.f and y.to_type = ${to} and y.to_id = e.t and y.type_id = ${primary[0] ?? -1})
          or (y.from_id = e.t and y.to_type = ${from} and y.to_id = e.f and y.type_id = ${primary[1] ?? -1})))`
    : sql`e.p`;
  return [
    rawStatement(
      db,
      sql`insert into webhook_outbox (id, portal_id, app_id, subscription_id, subscription_type, object_id, occurred_at, change_source, extra)
        select ${idCounter("webhook_outbox")} + row_number() over (order by e.f, e.t, g.key), ${outbox.portalId},
          g.value ->> 'a', g.value ->> 's', g.value ->> 't',
          iif(g.value ->> 'd' = 0, e.f, e.t), ${outbox.now}, ${outbox.source},
          json_set(g.value ->> 'x',
            '$.fromObjectId', iif(g.value ->> 'd' = 0, e.f, e.t),
            '$.toObjectId', iif(g.value ->> 'd' = 0, e.t, e.f),
            '$.associationRemoved', json(${removed ? "true" : "false"}),
            '$.isPrimaryAssociation', json(iif(${isPrimary}, 'true', 'false')))
        from (select j.value ->> 'f' as f, j.value ->> 't' as t, max(j.value ->> 'p') as p from json_each(${links}) j
            where ${removed ? held : sql`not ${held}`} group by 1, 2) e
          cross join json_each(${JSON.stringify(targets)}) g`,
    ),
  ];
}
