/** Helpers of the pipelines tests: a deal pipeline made through the API, and record writes. */
import { expect } from "vitest";
import { call, type Tenant } from "../helpers/api";

export const P = "/crm/v3/pipelines";

export const dealStage = (label: string, probability: string, displayOrder = 0) => ({ label, displayOrder, metadata: { probability } });

/** A new deal pipeline of two stages ("Open" 0.5, "Won" 1.0); its answer. */
export async function newDealPipeline(t: Tenant, label = `Renewals ${crypto.randomUUID().slice(0, 8)}`) {
  const res = await call("POST", `${P}/deals`, { token: t.pat, body: { label, displayOrder: 3, stages: [dealStage("Open", "0.5", 0), { ...dealStage("Won", "1.0", 1), metadata: { probability: "1.0", isClosed: "true" } }] } });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; label: string; stages: { id: string; label: string }[] };
}

export async function newDeal(t: Tenant, properties: Record<string, string>) {
  const res = await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}
