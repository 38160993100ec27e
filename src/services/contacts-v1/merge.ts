/**
 * @module The legacy face of the one merge (`POST /contacts/v1/contact/merge-vids/{vid}`): the work is
 * src/services/crm/merge.ts, shared with CRM v3's `/crm/v3/objects/contacts/merge`, so a merge through
 * either face reads the same through both. This face only words the refusals as the legacy service does.
 * Which property values win, and what the two records then show: docs/reference/contacts-v1.md "Merge".
 */
import type { Db } from "../../db/client";
import { badRequest } from "../../lib/errors";
import { mergeRecords } from "../crm/merge";
import type { OutboxSource } from "../webhooks/events";

/** The legacy service's 400s for a merge it refuses, as recorded from its merge-vids calls. */
const badPrimary = () => badRequest("canonical vid is not a valid contact or is already in the process of being merged");
const badSecondary = () => badRequest("vid to merge is not a valid contact or is already in the process of being merged");

export async function mergeContacts(db: Db, portalId: number, primaryVid: number, secondaryVid: number, now: number, outbox?: OutboxSource, eventsDb: Db = db) {
  const result = await mergeRecords(db, portalId, "contacts", primaryVid, secondaryVid, now, outbox, eventsDb);
  if (result.ok) return result.row;
  // A self-merge names the body's vid, as an unknown one does.
  throw result.refused === "primary" ? badPrimary() : badSecondary();
}
