/**
 * @module Planning the effect of a consumer batch's winning messages: translate through the mappings,
 * validate against current properties, apply. The reads for the whole batch are one D1
 * round trip, made alongside the ordering RPC (a second one only for objects named by v1 association
 * properties); the decisions per message are pure and become `Effect`s for commit.ts, or a retry (a line
 * item whose deal or product has not arrived yet), or a drop (the store is gone, or already applied).
 */
import type { Db } from "../../db/client";
import type { EcommObjectType } from "../../db/tables/ecomm";
import type { SyncQueueMessage } from "./sync-message";
import { emailKey, keyOf, keyString, storeKey, targetsOf, type LinkKey } from "./keys";
import { ASSOC_PROPERTY, PIPELINE_ID } from "./model";
import { type SyncErrorType } from "../../schemas/ecomm";
import { linkState, readLinks, type LinkState, type PlanContext } from "./plan-context";
import { governingSettings } from "./settings";
import { isValidEmail, translate, type SyncFailure } from "./translate";

export { readPlanContext, type PlanContext } from "./plan-context";

/** A line item waiting for its deal or product is retried this many deliveries before it is an error. */
export const ASSOC_MAX_ATTEMPTS = 4;

export interface AssocTarget {
  objectType: EcommObjectType;
  externalId: string;
}

export type Effect =
  | {
      kind: "upsert";
      msg: SyncQueueMessage;
      /** CRM properties to merge; null removes one. */
      patch: Record<string, string | null>;
      /** Properties of the record to create when the object has none yet; null when it has one. */
      createProps: Record<string, string> | null;
      /** The lower-cased email column when the message sets it (contacts). */
      email: { set: boolean; value: string | null };
      /** The deal stage the message sets (deals), for the abandonment sweep. */
      stage: string | null;
      /** An existing contact with the same email the new object is linked to instead of creating one. */
      presetServiceId: number | null;
      /** Identity of the record this message would create (commit.ts checks the new record against it). */
      guid: string;
      /** CRM types whose associations the message replaces, and the targets it names. */
      assoc: { replace: EcommObjectType[]; targets: AssocTarget[] };
      /** The object's link as planning read it; null when it had none (commit-direct.ts relies on it). */
      link: LinkState | null;
      /** Whether planning saw the database's id counters (a new object's direct write reserves ids from them). */
      idCounters: boolean;
    }
  | { kind: "delete"; msg: SyncQueueMessage }
  | { kind: "error"; msg: SyncQueueMessage; type: SyncErrorType; details: string };

export type Outcome =
  | { kind: "effect"; effect: Effect }
  | { kind: "retry"; delaySeconds: number; reason: string }
  /** Acked without effect: the store is gone, or the message's effect is already committed (redelivery). */
  | { kind: "drop"; reason: string };

/** Exponential backoff for deliveries: 5 s, 10 s, 20 s ... capped at 5 minutes. */
export const backoffSeconds = (attempts: number) => Math.min(300, 5 * 2 ** Math.max(0, attempts - 1));

interface Translation {
  patch: Record<string, string | null>;
  targets: ReturnType<typeof targetsOf>;
}

const fail = (msg: SyncQueueMessage, f: SyncFailure): Outcome => ({ kind: "effect", effect: { kind: "error", msg, type: f.type, details: f.details } });

/** Each type is planned before the types that associate with it: deals name contacts, line items a deal and a product. */
const TYPE_ORDER: Record<EcommObjectType, number> = { CONTACT: 0, PRODUCT: 1, DEAL: 2, LINE_ITEM: 3 };

/**
 * Plans every winning message. `attempts` is the delivery count of each message (msg.attempts).
 * Returns an outcome per message id.
 */
export async function planBatch(
  db: Db,
  ctx: PlanContext,
  msgs: SyncQueueMessage[],
  attempts: Map<string, number>,
  liveOwners: LiveOwners = async () => new Set(),
): Promise<Map<string, Outcome>> {
  const ordered = [...msgs].sort((a, b) => TYPE_ORDER[a.objectType] - TYPE_ORDER[b.objectType]);

  const translations = new Map<string, Translation | SyncFailure>();
  const unread = new Map<string, LinkKey>();
  for (const m of ordered) {
    const settings = governingSettings(ctx.settings, m.portalId, m.appId);
    if (!settings || m.message.action === "DELETE") continue;
    const t = translate(settings.mappings[m.objectType]?.properties ?? [], m.message.properties ?? {});
    if (!("patch" in t)) {
      translations.set(m.id, t);
      continue;
    }
    const targets = targetsOf(m, t.assoc);
    translations.set(m.id, { patch: t.patch, targets });
    for (const [objectType, ids] of [["CONTACT", targets.contacts], ["DEAL", targets.deals], ["PRODUCT", targets.products]] as const) {
      for (const externalId of ids ?? []) {
        const k = { portalId: m.portalId, storeId: m.storeId, objectType, externalId };
        if (!ctx.readKeys.has(keyString(k))) unread.set(keyString(k), k);
      }
    }
  }
  if (unread.size) {
    // Objects named only by v1 association properties, known after translation: one more read.
    for (const l of await readLinks(db, [...unread.values()])) ctx.links.set(keyString(l), linkState(l));
    for (const k of unread.keys()) ctx.readKeys.add(k);
  }

  const owners = await ownersNamed(translations, msgs, liveOwners);

  const out = new Map<string, Outcome>();
  /** Objects that exist now or are upserted earlier in this batch: associations to them resolve. */
  const available = new Set<string>([...ctx.links].filter(([, l]) => l.serviceId !== null).map(([k]) => k));
  /** Emails that an object of this batch writes, so two new contacts never race for one email. */
  const claimed = new Map<string, string>();

  for (const m of ordered) {
    const store = ctx.stores.get(storeKey(m.portalId, m.storeId));
    if (!store || store.generation !== m.storeGen) {
      out.set(m.id, { kind: "drop", reason: `store ${m.storeId} of account ${m.portalId} no longer exists` });
      continue;
    }
    const link = ctx.links.get(keyString(keyOf(m)));
    if (link?.messageId === m.id) {
      // The link only ever carries a message id inside the batch that commits the message's whole effect.
      out.set(m.id, { kind: "drop", reason: "already applied (redelivery)" });
      continue;
    }
    const settings = governingSettings(ctx.settings, m.portalId, m.appId);
    if (!settings) {
      const whose = m.appId === null ? "this account" : `app ${m.appId} or for this account`;
      out.set(m.id, fail(m, { type: "NO_SYNC_SETTINGS", details: `No ecommerce settings exist for ${whose}.` }));
      continue;
    }
    if (!settings.enabled) {
      // Names the settings in force (the app's or the account's), so the error tells which ones to enable.
      const whose = settings.ownerKind === "app" ? `app ${settings.ownerId} (app-level)` : "this account (account-level)";
      out.set(m.id, fail(m, { type: "SETTINGS_NOT_ENABLED", details: `The ecommerce settings of ${whose} are not enabled; sync is paused.` }));
      continue;
    }
    if (m.message.action === "DELETE") {
      out.set(m.id, { kind: "effect", effect: { kind: "delete", msg: m } });
      continue;
    }
    const t = translations.get(m.id);
    if (!t) throw new Error("untranslated message");
    if (!("patch" in t)) {
      out.set(m.id, fail(m, t));
      continue;
    }
    const owner = t.patch[OWNER];
    if (owner && !owners.has(`${m.portalId}|${owner}`)) {
      out.set(m.id, fail(m, { type: "INVALID_ENUM_PROPERTY", details: `${OWNER} ${owner} is not an owner of this account.` }));
      continue;
    }
    const outcome = planUpsert(m, t, link ?? null, ctx, available, claimed, attempts.get(m.id) ?? 1);
    if (outcome.kind === "effect" && outcome.effect.kind === "upsert") available.add(keyString(keyOf(m)));
    out.set(m.id, outcome);
  }
  return out;
}

/** The live owners among `ids` of one account (src/services/owners/owners.ts reads them from the control plane). */
export type LiveOwners = (portalId: number, ids: number[]) => Promise<Set<string>>;

/**
 * `hubspot_owner_id` names a live owner of the account on every write face, the sync's too: a message that
 * maps another value to it is a sync error (INVALID_ENUM_PROPERTY: the property is an enumeration of the
 * account's owners), and the record is left as it was. One control-plane read per account, and only when
 * a message of the batch sets an owner; `portalId|ownerId` of each live one.
 */
const OWNER = "hubspot_owner_id";
async function ownersNamed(translations: Map<string, Translation | SyncFailure>, msgs: SyncQueueMessage[], liveOwners: LiveOwners): Promise<Set<string>> {
  const named = new Map<number, number[]>();
  for (const m of msgs) {
    const t = translations.get(m.id);
    const owner = t && "patch" in t ? t.patch[OWNER] : undefined;
    if (owner && /^\d{1,15}$/.test(owner)) named.set(m.portalId, [...(named.get(m.portalId) ?? []), Number(owner)]);
  }
  const live = new Set<string>();
  for (const [portalId, ids] of named) for (const id of await liveOwners(portalId, ids)) live.add(`${portalId}|${id}`);
  return live;
}

/** An upsert that only patches the record: where planning starts, before the type's rules add to it. */
export function upsertEffect(m: SyncQueueMessage, patch: Translation["patch"], link: LinkState | null, idCounters: boolean): Extract<Effect, { kind: "upsert" }> {
  return {
    kind: "upsert",
    msg: m,
    patch,
    createProps: null,
    email: { set: false, value: null },
    stage: null,
    presetServiceId: null,
    guid: crypto.randomUUID(),
    assoc: { replace: [], targets: [] },
    link,
    idCounters,
  };
}

function planUpsert(
  m: SyncQueueMessage,
  { patch, targets }: Translation,
  link: LinkState | null,
  ctx: PlanContext,
  available: Set<string>,
  claimed: Map<string, string>,
  attempts: number,
): Outcome {
  const serviceId = link?.serviceId ?? null;
  const exists = serviceId !== null;
  const effect = upsertEffect(m, patch, link, ctx.idCounters);
  const missing = (name: string, how = "") =>
    fail(m, { type: "MISSING_REQUIRED_PROPERTY", details: `The required property ${name} is missing${how}.` });

  switch (m.objectType) {
    case "CONTACT": {
      // Only contacts with a valid email are created; an update may omit it.
      if (!("email" in patch)) {
        if (!exists) return missing("email", ": map it and send it in the message properties");
        break;
      }
      const raw = patch.email;
      if (raw === null || raw === undefined) return missing("email", ": a contact's email cannot be cleared");
      const email = raw.trim();
      if (!isValidEmail(email)) return fail(m, { type: "INVALID_EMAIL_ADDRESS", details: `Email address ${email} is invalid.` });
      const lower = email.toLowerCase();
      patch.email = email;
      effect.email = { set: true, value: lower };
      const owner = ctx.emailOwners.get(emailKey(m.portalId, lower));
      if (owner !== undefined) {
        if (exists && owner !== serviceId) {
          return fail(m, { type: "INVALID_EMAIL_ADDRESS", details: `Email address ${email} is already used by another contact (${owner}) of this account.` });
        }
        // Email is unique per account: a new external contact joins the existing record.
        if (!exists) effect.presetServiceId = owner;
      } else {
        const claimKey = emailKey(m.portalId, lower);
        const by = claimed.get(claimKey);
        if (by !== undefined && by !== keyString(keyOf(m))) {
          return { kind: "retry", delaySeconds: 2, reason: `email ${lower} is written by another message of this batch` };
        }
        claimed.set(claimKey, keyString(keyOf(m)));
      }
      break;
    }
    case "DEAL": {
      if ("dealstage" in patch) {
        const stage = patch.dealstage;
        if (stage === null || stage === undefined) return missing("dealstage", ": a deal's stage cannot be cleared");
        if (!ctx.stages.get(m.portalId)?.has(stage)) {
          return fail(m, { type: "INVALID_DEAL_STAGE", details: `Deal stage ${stage} is not a stage of the ecommerce pipeline.` });
        }
        effect.stage = stage;
        patch.pipeline = PIPELINE_ID; // every bridge deal is in the ecommerce pipeline
      } else if (!exists) {
        return missing("dealstage");
      }
      const contacts = targets.contacts;
      if (contacts !== undefined) {
        // A deal may name many contacts; unknown ones are ignored without error (the commit's join drops them).
        effect.assoc.replace.push("CONTACT");
        effect.assoc.targets.push(...contacts.map((e) => ({ objectType: "CONTACT" as const, externalId: e })));
      }
      break;
    }
    case "LINE_ITEM": {
      const unresolved: string[] = [];
      const wants: [EcommObjectType, string, string[] | undefined][] = [
        ["DEAL", ASSOC_PROPERTY.lineItemDeal, targets.deals],
        ["PRODUCT", ASSOC_PROPERTY.lineItemProduct, targets.products],
      ];
      for (const [type, property, ids] of wants) {
        if (ids === undefined) {
          if (!exists) return missing(property, `: a line item needs associations.${type} (or a mapped ${property})`);
          continue;
        }
        if (ids.length !== 1) {
          return fail(m, { type: "INVALID_ASSOCIATION", details: `A line item is associated with exactly one ${type.toLowerCase()}; got ${ids.length}.` });
        }
        const target = { objectType: type, externalId: ids[0]! };
        if (!available.has(keyString({ portalId: m.portalId, storeId: m.storeId, ...target }))) unresolved.push(`[${property}: ${target.externalId}]`);
        effect.assoc.replace.push(type);
        effect.assoc.targets.push(target);
      }
      if (unresolved.length) {
        // A line item must name its deal and its product. Either may simply not have arrived yet.
        if (attempts < ASSOC_MAX_ATTEMPTS) {
          return { kind: "retry", delaySeconds: backoffSeconds(attempts), reason: `waiting for ${unresolved.join(" ")}` };
        }
        return fail(m, { type: "MISSING_ASSOCIATED_OBJECT", details: `The associated objects do not exist: ${unresolved.join(" ")}.` });
      }
      break;
    }
    case "PRODUCT":
      break;
  }
  if (!exists && effect.presetServiceId === null) {
    effect.createProps = Object.fromEntries(Object.entries(patch).filter((e): e is [string, string] => e[1] !== null));
  }
  return { kind: "effect", effect };
}

