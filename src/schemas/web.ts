/** @module zod schemas of the web app's pages and of the JSON endpoints its scripts call. */
import { z } from "zod";
import { ECOMM_OBJECT_TYPES } from "../db/tables/ecomm";
import { postedActionSchema } from "./cards/response";

import { actionParams, actionResponse, shownCard, viewParams } from "./cards/view";

export const SEARCH_MAX_LENGTH = 100;


/** Pages take any segment and answer an HTML 404 page for unknown types or ids (after the sign-in check). */
export const listParams = z.object({ objectType: z.string().max(100) });
export const recordParams = z.object({ objectType: z.string().max(100), objectId: z.string().max(100) });

export const listQuery = z.object({
  q: z.string().max(SEARCH_MAX_LENGTH, `q must be at most ${SEARCH_MAX_LENGTH} characters`).optional(),
  after: z.string().regex(/^\d{1,15}$/, "after must be a record id").transform(Number).optional(),
});

/**
 * `/app/stores/:storeId`: path segments arrive percent-encoded (itty-router does not decode). A segment
 * that does not decode names no store, so it is kept as is and answered with the 404 page.
 */
export const storeParams = z.object({
  storeId: z
    .string()
    .max(300)
    .transform((v) => {
      try {
        return decodeURIComponent(v);
      } catch {
        return v;
      }
    }),
});
/** `/app/mail`: the id of the last mail of the previous page (newest first). */
export const mailQuery = z.object({
  after: z.string().regex(/^\d{1,15}$/, "after must be a mail id").transform(Number).optional(),
});

export const storeQuery = z.object({
  type: z.enum(ECOMM_OBJECT_TYPES, { error: `type must be one of ${ECOMM_OBJECT_TYPES.join(", ")}` }).optional(),
  after: z.string().min(1).max(100, "after must be an external object id").optional(),
});

export const recordQuery = z.object({
  after: z.string().regex(/^-?\d{1,16}\.\d{1,15}$/, "after must be a timeline cursor").optional(),
});

/**
 * The record page's forms (routes/web/associations.ts, activities.ts). A form's fields are read as strings
 * and checked by the handler, so a refused value is shown next to its field on the form, not as JSON, and a
 * signed-out browser's post is sent to sign in whatever it carries. The request body limit (1 MiB) bounds them.
 */
export const formBody = z.record(z.string(), z.string());
export const associationParams = recordParams.extend({ toObjectType: z.string().max(100), toObjectId: z.string().max(100) });
export const activityParams = recordParams.extend({ activityId: z.string().max(100) });
export const associateQuery = z.object({
  type: z.string().max(100).optional(),
  q: z.string().max(SEARCH_MAX_LENGTH, `q must be at most ${SEARCH_MAX_LENGTH} characters`).optional(),
});

/** `GET /app/api/cards/:objectType/:objectId/:cardId`: the same path rules as the cards API. */
export const cardParams = actionParams;
export { viewParams };

/** The browser posts back the action object the card showed, with its actionToken; the user is the session's. */
export const actionBody = z.object({ action: postedActionSchema });
export { actionResponse };

const definition = z.object({
  name: z.string(),
  label: z.string(),
  dataType: z.string(),
  options: z.array(z.object({ type: z.string(), label: z.string(), name: z.string() })).optional(),
});

/** One card as the page renders it: the cards service's view plus the record type's property definitions. */
export const cardResponse = shownCard.extend({ propertyDefinitions: z.array(definition) });
