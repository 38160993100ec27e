/**
 * @module Clean-ups that run in the same db.batch as an uninstall (uninstalling an app deletes the
 * ecommerce stores it created, and its sync errors in the account). Each domain registers a function returning its statements.
 */
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { deleteAppStores } from "../ecomm/stores";
import { deleteAppErrors } from "../ecomm/app-errors";

export interface UninstallRef {
  portalId: number;
  appId: number;
  installId: number;
}

export type UninstallHook = (db: Db, ref: UninstallRef) => BatchItem<"sqlite">[];

export const uninstallHooks: UninstallHook[] = [deleteAppStores, deleteAppErrors];
