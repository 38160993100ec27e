/**
 * @module The pipelines every account starts with, as the real service creates them: deals `default`
 * ("Sales Pipeline", seven stages) and tickets `0` ("Support Pipeline", four stages), with the real
 * service's stage ids and metadata (strings, as it answers them). They are not stored: an account's
 * reads answer them from here until the account changes one, which stores the whole pipeline first
 * (src/services/pipelines/write.ts). So a new account costs no write, and a read never writes.
 */
import type { PipelineType } from "../../db/tables/pipelines";

export interface BuiltInStage {
  id: string;
  label: string;
  metadata: Record<string, string>;
}

export interface BuiltInPipeline {
  id: string;
  label: string;
  stages: BuiltInStage[];
}

const deal = (id: string, label: string, probability: string, isClosed = false): BuiltInStage => ({ id, label, metadata: { isClosed: String(isClosed), probability } });
const ticket = (id: string, label: string, ticketState: "OPEN" | "CLOSED"): BuiltInStage => ({ id, label, metadata: { ticketState } });

export const BUILT_IN: Record<PipelineType, BuiltInPipeline> = {
  deals: {
    id: "default",
    label: "Sales Pipeline",
    stages: [
      deal("appointmentscheduled", "Appointment Scheduled", "0.2"),
      deal("qualifiedtobuy", "Qualified To Buy", "0.4"),
      deal("presentationscheduled", "Presentation Scheduled", "0.6"),
      deal("decisionmakerboughtin", "Decision Maker Bought-In", "0.8"),
      deal("contractsent", "Contract Sent", "0.9"),
      deal("closedwon", "Closed Won", "1.0", true),
      deal("closedlost", "Closed Lost", "0.0", true),
    ],
  },
  tickets: {
    id: "0",
    label: "Support Pipeline",
    stages: [ticket("1", "New", "OPEN"), ticket("2", "Waiting on contact", "OPEN"), ticket("3", "Waiting on us", "OPEN"), ticket("4", "Closed", "CLOSED")],
  },
};

/**
 * The time built-in pipelines and stages report as created and updated until an account changes them:
 * they exist from the account's start, and this service keeps no row that would say when that was.
 */
export const BUILT_IN_AT = 0;

/** The record properties that hold a record's pipeline and stage, per type. */
export const PIPELINE_PROPERTIES: Record<PipelineType, { pipeline: string; stage: string }> = {
  deals: { pipeline: "pipeline", stage: "dealstage" },
  tickets: { pipeline: "hs_pipeline", stage: "hs_pipeline_stage" },
};
