/**
 * @module The test kit's webhook controls over an app (docs/reference/testkit.md "Webhooks"): test events and
 * the hold. Both act for test accounts only: a test event goes from a DEVELOPER_TEST or SANDBOX account
 * where the app is installed, and a hold keeps only test accounts' events waiting (src/services/webhooks/hold.ts).
 *
 * A test event is an outbox row of the account, as a change's event is: the drain, the queue, the delivery
 * (signatures, retries, throttling, the delivery log, the hold) are the ones every event goes through.
 */
import { and, eq, isNull, notInArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { newId } from "../../db/id-ranges";
import { accounts, apps, installs } from "../../db/tables/tenancy";
import { webhookHolds } from "../../db/tables/testkit";
import { webhookOutbox, webhookSettings, webhookSubscriptions } from "../../db/tables/webhooks";
import { conflict, notFound } from "../../lib/errors";
import type { TestEventInput } from "../../schemas/testkit";
import { EVENT_OBJECT, GENERIC_TYPE_IDS, subscriptionKey } from "../../schemas/webhooks/event-types";
import type { ObjectType } from "../../db/tables/crm";
import { associationTypeName } from "../webhooks/association-events";
import { heldCounts, releaseHeld } from "../webhooks/hold";
import { requireTestAccount } from "./account";

async function requireApp(control: Db, appId: number) {
  const app = await control.select({ appId: apps.appId }).from(apps).where(eq(apps.appId, appId)).get();
  if (!app) throw notFound(`App ${appId} not found`);
}

export async function getHold(env: Env, control: Db, appId: number) {
  await requireApp(control, appId);
  const [hold, counts] = await Promise.all([control.select().from(webhookHolds).where(eq(webhookHolds.appId, appId)).get(), heldCounts(env, control, appId)]);
  return { appId, held: hold !== undefined, ...(hold ? { heldAt: new Date(hold.heldAt).toISOString() } : {}), heldDeliveries: counts.deliveries, heldEvents: counts.events };
}

/**
 * Holds or releases the app's deliveries. Holding an app installed in a STANDARD account is a 409 naming it:
 * the kit never pauses production. Releasing is always allowed, and releases what is held even when the app
 * was not held any more (a release that crashed midway is finished by the next one).
 */
export async function setHold(env: Env, control: Db, queue: Queue, appId: number, held: boolean, now: number) {
  await requireApp(control, appId);
  if (held) {
    const standard = await control
      .select({ portalId: accounts.portalId, accountType: accounts.accountType })
      .from(installs)
      .innerJoin(accounts, eq(accounts.portalId, installs.portalId))
      .where(and(eq(installs.appId, appId), notInArray(accounts.accountType, ["DEVELOPER_TEST", "SANDBOX"]), sql`${accounts.status} <> 'deleting'`))
      .get();
    if (standard) {
      throw conflict(
        `App ${appId} is installed in account ${standard.portalId}, whose accountType is ${standard.accountType}: the test kit holds the deliveries of apps installed only in accounts whose accountType is DEVELOPER_TEST or SANDBOX`,
      );
    }
    await control.insert(webhookHolds).values({ appId, heldAt: now }).onConflictDoNothing();
  } else {
    // The hold goes first: from here on nothing more is parked, so the release below leaves nothing behind.
    await control.delete(webhookHolds).where(eq(webhookHolds.appId, appId));
    await releaseHeld(env, control, queue, appId, now);
  }
  return getHold(env, control, appId);
}

/**
 * Queues a test event: the app's settings, the account (a test account where the app is installed) and
 * the app's own subscription of that type, if it has one (its id is the event's `subscriptionId`; 0 when
 * the app has none, so a receiver can be tried before subscribing).
 */
export async function queueTestEvent(control: Db, shard: (name: string | null) => Db, appId: number, input: TestEventInput, realNow: number) {
  await requireApp(control, appId);
  const account = await requireTestAccount(control, input.portalId);
  const now = realNow + account.clockOffsetMs; // the event's occurredAt, by the account's clock (clock.ts)
  const [install, settings, subscription] = await Promise.all([
    control.select({ id: installs.id }).from(installs).where(and(eq(installs.appId, appId), eq(installs.portalId, input.portalId))).get(),
    control.select({ appId: webhookSettings.appId }).from(webhookSettings).where(eq(webhookSettings.appId, appId)).get(),
    control
      .select({ id: webhookSubscriptions.id })
      .from(webhookSubscriptions)
      .where(
        and(
          eq(webhookSubscriptions.appId, appId),
          eq(webhookSubscriptions.eventType, subscriptionKey(input.subscriptionType, input.objectTypeId)),
          input.propertyName === undefined ? isNull(webhookSubscriptions.propertyName) : eq(webhookSubscriptions.propertyName, input.propertyName),
        ),
      )
      .get(),
  ]);
  if (!install) throw conflict(`App ${appId} is not installed in account ${input.portalId}: a test event goes from an account where the app is installed`);
  if (!settings) throw conflict(`App ${appId} has no webhook settings: PUT /webhooks/v3/${appId}/settings gives it a target URL first`);
  const objectId = input.objectId ?? TEST_OBJECT_ID;
  const extra = {
    ...(input.objectTypeId !== undefined ? { objectTypeId: input.objectTypeId } : {}),
    ...(input.propertyName !== undefined ? { propertyName: input.propertyName, propertyValue: input.propertyValue ?? "" } : {}),
    ...(input.subscriptionType.endsWith(".merge") ? { primaryObjectId: objectId, mergedObjectIds: [] as number[] } : {}),
    ...(input.subscriptionType.endsWith(".associationChange") ? sampleAssociation(input, objectId) : {}),
  };
  const db = shard(account.shard);
  const row = await db
    .insert(webhookOutbox)
    .values({
      id: newId("webhook_outbox"),
      portalId: input.portalId,
      appId,
      subscriptionId: subscription?.id ?? 0,
      subscriptionType: input.subscriptionType,
      objectId,
      occurredAt: now,
      changeSource: "API",
      extra: Object.keys(extra).length ? JSON.stringify(extra) : null,
    })
    .returning({ id: webhookOutbox.id })
    .get();
  const event = {
    eventId: row.id,
    subscriptionId: subscription?.id ?? 0,
    portalId: input.portalId,
    appId,
    occurredAt: now,
    subscriptionType: input.subscriptionType,
    objectId,
    changeSource: "API",
    ...extra,
  };
  return { event, db };
}

/**
 * The association fields of a test `associationChange` event: the record's association with a contact (a
 * contact's: with a company) of the made-up id, added and not primary.
 */
function sampleAssociation(input: TestEventInput, objectId: number) {
  const object = input.subscriptionType.slice(0, input.subscriptionType.indexOf("."));
  const own = (input.objectTypeId ? GENERIC_TYPE_IDS.get(input.objectTypeId) : (Object.keys(EVENT_OBJECT) as ObjectType[]).find((t) => EVENT_OBJECT[t] === object)) ?? "contacts";
  const other: ObjectType = own === "contacts" ? "companies" : "contacts";
  return { associationType: associationTypeName(own, other), fromObjectId: objectId, toObjectId: TEST_OBJECT_ID, associationRemoved: false, isPrimaryAssociation: false };
}

/** The objectId of a test event that names none: a made-up id, as the real service's sample events carry. */
export const TEST_OBJECT_ID = 123;
