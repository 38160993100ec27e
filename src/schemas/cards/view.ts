/** @module zod schemas of the CRM card view and action endpoints under `/crm/v3/objects/{objectType}/{objectId}/cards`. */
import { z } from "zod";

import { HTTP_METHODS, postedActionSchema } from "./response";
import type { ObjectType } from "../../db/tables/crm";


/** The record types whose cards can appear on CRM records, and the CARD_OBJECT_TYPES name of each. */
export const CARD_RECORD_TYPES = ["contacts", "companies", "deals", "tickets"] as const satisfies readonly ObjectType[];
export type CardRecordType = (typeof CARD_RECORD_TYPES)[number];
export const isCardRecordType = (s: string): s is CardRecordType => (CARD_RECORD_TYPES as readonly string[]).includes(s);


/** How long a shown action stays runnable: long enough for a record page left open for a while. */
export const ACTION_TOKEN_TTL_MS = 60 * 60 * 1000;


const id = z.string().regex(/^\d{1,15}$/, "must be a numeric id").transform(Number);
const cardRecordType = z.enum(CARD_RECORD_TYPES, { error: `objectType must be one of ${CARD_RECORD_TYPES.join(", ")}` });

export const viewParams = z.object({ objectType: cardRecordType, objectId: id });
export const actionParams = viewParams.extend({ cardId: id });

const userId = z.union([z.number().int().positive(), z.string().regex(/^\d{1,15}$/, "userId must be a numeric user id").transform(Number)]);
export const viewQuery = z.object({ userId: z.string({ error: "userId is required" }).regex(/^\d{1,15}$/, "userId must be a numeric user id").transform(Number) });
export const actionBody = z.object({ userId, action: postedActionSchema });

/** An action as the card view shows it: the integrator's fields plus the service's actionToken. */
export const shownAction = z.object({
  type: z.enum(["IFRAME", "ACTION_HOOK", "CONFIRMATION_ACTION_HOOK"]),
  label: z.string(),
  uri: z.string(),
  associatedObjectProperties: z.array(z.string()),
  httpMethod: z.enum(HTTP_METHODS).optional(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  confirmationMessage: z.string().optional(),
  confirmButtonText: z.string().optional(),
  cancelButtonText: z.string().optional(),
  actionToken: z.string().meta({
    description:
      `Set by the service: proof that the integrator offered this action to this user on this record (bound to the app, card, account, record and user, and to the action's type, httpMethod, uri, associatedObjectProperties and IFRAME size; valid for ${ACTION_TOKEN_TTL_MS / 60_000} minutes). Post the action back with it to run it.`,
  }),
});
/** A shown item: what the integrator sent (reduced), with its actions as shown. */
export const shownItem = z.looseObject({ objectId: z.number().int(), title: z.string(), link: z.string().nullable(), actions: z.array(shownAction) });

/** One card as the views show it (`GET .../cards`; the record page's card endpoint adds to it). */
export const shownCard = z.object({
  cardId: z.number().int(),
  appId: z.number().int(),
  title: z.string(),
  status: z.enum(["OK", "ERROR"]),
  error: z.string().optional(),
  results: z.array(shownItem),
  totalCount: z.number().int().optional(),
  allItemsLink: z.string().optional(),
  itemLabel: z.string().optional(),
  settingsAction: shownAction.optional(),
  primaryAction: shownAction.optional(),
  secondaryActions: z.array(shownAction).optional(),
  warnings: z.array(z.string()).optional(),
});
export const viewResponse = z.object({ cards: z.array(shownCard) });

export const actionResponse = z.union([
  z.object({ ok: z.boolean(), integratorStatus: z.number().int().nullable(), message: z.string().nullable() }),
  z.object({ ok: z.literal(true), iframeUrl: z.string(), width: z.number().int(), height: z.number().int() }),
]);
