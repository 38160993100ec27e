/** @module Per-object last-write-wins ordering for ecommerce sync (issue 3). */
import { DurableObject } from "cloudflare:workers";

export class SyncOrder extends DurableObject<Env> {}
