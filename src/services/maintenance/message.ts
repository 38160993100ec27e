/**
 * @module The maintenance queue's message (versioned): one job to run on one database, at the time of the
 * tick (or the request) that asked for it.
 */
import { z } from "zod";

export const MAINTENANCE_MESSAGE_VERSION = 1;

export const maintenanceMessage = z.object({
  v: z.literal(MAINTENANCE_MESSAGE_VERSION),
  /** A name of `maintenanceJobs` (jobs.ts). Checked by the consumer, so a message of a job removed since it was sent is dropped, not retried. */
  job: z.string().min(1),
  /** The database: `SHARD_<n>`, or `DB` (the control plane, which holds the accounts whose shard is null). */
  shard: z.string().min(1),
  /**
   * The tick's scheduled time (ms), the `now` the job runs at: the same now the job had when the tick ran
   * it in place, so a message that waits in the queue or is retried judges "due" by its tick, never later.
   */
  scheduledTime: z.number().int(),
  /**
   * What a targeted job works on (TARGETED_JOBS of jobs.ts: sent by a request, never by the tick), e.g. the
   * deleted timeline event type whose events it purges. Absent for the tick's sweeps.
   */
  subject: z.number().int().positive().optional(),
});
export type MaintenanceMessage = z.infer<typeof maintenanceMessage>;
