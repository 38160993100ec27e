/**
 * The official SDK @hubspot/api-client 14.0.1, unmodified, against the Worker: every pipelines route
 * (docs/reference/pipelines.md) through crm.pipelines' pipelinesApi, pipelineStagesApi, pipelineAuditsApi
 * and pipelineStageAuditsApi. Its generated classes throw on any status but the documented one (create
 * 201, archive 204, the rest 200), so each resolved call also checks the status.
 */
import { Client } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { rejection, tenant, workerUrl, type NodeTenant } from "./helpers";

const sdk = (t: NodeTenant) => new Client({ accessToken: t.oauth, basePath: workerUrl() });

interface ApiException {
  code: number;
  body: { status: string; message: string; category: string; errors?: { message: string; context?: { propertyName?: string[] } }[] };
}

const stage = (label: string, probability: string, displayOrder: number) => ({ label, displayOrder, metadata: { probability } });

describe("@hubspot/api-client 14.0.1: CRM pipelines", () => {
  it("pipelines: list, create, get, replace, update, archive and the audit", async () => {
    const t = await tenant();
    const api = sdk(t).crm.pipelines;
    const all = await api.pipelinesApi.getAll("deals");
    expect(all.results.map((p) => p.id)).toEqual(["default"]);
    expect(all.results[0]!.createdAt).toBeInstanceOf(Date);
    expect(all.results[0]!.stages.find((s) => s.id === "closedwon")?.metadata).toEqual({ isClosed: "true", probability: "1.0" });

    const made = await api.pipelinesApi.create("deals", { label: "SDK pipeline", displayOrder: 2, stages: [stage("Open", "0.3", 0), stage("Won", "1.0", 1)] });
    expect(made.id).toMatch(/^\d+$/);
    expect((await api.pipelinesApi.getById("deals", made.id)).label).toBe("SDK pipeline");

    const replaced = await api.pipelinesApi.replace("deals", made.id, { label: "SDK replaced", displayOrder: 3, stages: [stage("Open", "0.4", 0), stage("Lost", "0.0", 1)] }, true, true);
    expect(replaced.stages.map((s) => s.label)).toEqual(["Open", "Lost"]);
    expect(replaced.stages[0]!.id).toBe(made.stages[0]!.id);

    const updated = await api.pipelinesApi.update("0-3", made.id, { label: "SDK updated" }, false, false);
    expect(updated).toMatchObject({ label: "SDK updated", displayOrder: 3, archived: false });

    const audit = await sdk(t).crm.pipelines.pipelineAuditsApi.getAudit("deals", made.id);
    expect(audit.results.map((a) => a.action)).toEqual(["UPDATE", "UPDATE", "CREATE"]);
    expect(audit.results[0]!.portalId).toBe(t.portalId);

    await api.pipelinesApi.archive("deals", made.id, true, true);
    const gone = await rejection<ApiException>(api.pipelinesApi.getById("deals", made.id));
    expect(gone.code).toBe(404);
  });

  it("stages: list, create, get, replace, update, archive and the stage audit", async () => {
    const t = await tenant();
    const stages = sdk(t).crm.pipelines.pipelineStagesApi;
    expect((await stages.getAll("tickets", "0")).results.map((s) => s.label)).toEqual(["New", "Waiting on contact", "Waiting on us", "Closed"]);
    const made = await stages.create("tickets", "0", { label: "Escalated", displayOrder: 4, metadata: { ticketState: "OPEN" } });
    expect(made.id).toMatch(/^\d+$/);
    expect((await stages.getById("tickets", "0", made.id)).label).toBe("Escalated");
    const replaced = await stages.replace("tickets", "0", made.id, { label: "Escalated to us", displayOrder: 5, metadata: { ticketState: "CLOSED" } });
    expect(replaced.metadata).toEqual({ ticketState: "CLOSED" });
    const updated = await stages.update("tickets", "0", made.id, { label: "Escalations" });
    expect(updated).toMatchObject({ label: "Escalations", displayOrder: 5 });
    // The client leaves {pipelineId} unfilled in this path: the stage is found in whichever pipeline holds it.
    const audit = await sdk(t).crm.pipelines.pipelineStageAuditsApi.getAudit("tickets", made.id);
    expect(audit.results.map((a) => a.action)).toEqual(["UPDATE", "UPDATE", "CREATE"]);
    await stages.archive("tickets", "0", made.id);
    expect((await stages.getAll("tickets", "0")).results).toHaveLength(4);
  });

  it("bad input is an ApiException 400 naming the field; a deal stage of another pipeline is refused on a record", async () => {
    const t = await tenant();
    const api = sdk(t).crm.pipelines;
    const e = await rejection<ApiException>(api.pipelinesApi.create("deals", { label: "No probability", displayOrder: 0, stages: [{ label: "A", displayOrder: 0 }] }));
    expect(e.code).toBe(400);
    expect(e.body.errors?.[0]?.context?.propertyName).toEqual(["stages.0.metadata.probability"]);
    const made = await api.pipelinesApi.create("deals", { label: "Other", displayOrder: 1, stages: [stage("Only", "0.5", 0)] });
    const deal = await rejection<ApiException>(sdk(t).crm.deals.basicApi.create({ properties: { dealname: "x", dealstage: made.stages[0]!.id }, associations: [] }));
    expect(deal.code).toBe(400);
    expect(deal.body.errors?.[0]?.context?.propertyName).toEqual(["properties.dealstage"]);
  });
});
