/**
 * Pipelines and stages of deals and tickets (docs/reference/pipelines.md): the built-in pipelines every
 * account starts with, created pipelines and stages, the ecommerce bridge's pipeline, the record writes
 * they check, the properties' options, archiving, the audit, and the web app's labels.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { bridgeTenant } from "../ecomm/queue-helpers";
import { page, signIn } from "../web/helpers";
import { dealStage, newDeal, newDealPipeline, P } from "./helpers";

const rowsOf = async (portalId: number, table: string) =>
  (await (await accountD1(portalId)).prepare(`select count(*) as n from ${table} where portal_id = ?`).bind(portalId).first<number>("n"))!;

describe("the built-in pipelines", () => {
  it("every account starts with the deals and tickets defaults, answered from code without a stored row", async () => {
    const t = await tenant();
    const deals = await call("GET", `${P}/deals`, { token: t.pat });
    expect(deals.status).toBe(200);
    expect(deals.json.results).toHaveLength(1);
    const sales = deals.json.results[0];
    expect(sales).toMatchObject({ id: "default", label: "Sales Pipeline", displayOrder: 0, archived: false });
    expect(sales.stages.map((s: { id: string; metadata: Record<string, string> }) => [s.id, s.metadata.probability, s.metadata.isClosed])).toEqual([
      ["appointmentscheduled", "0.2", "false"],
      ["qualifiedtobuy", "0.4", "false"],
      ["presentationscheduled", "0.6", "false"],
      ["decisionmakerboughtin", "0.8", "false"],
      ["contractsent", "0.9", "false"],
      ["closedwon", "1.0", "true"],
      ["closedlost", "0.0", "true"],
    ]);
    const tickets = await call("GET", `${P}/0-5`, { token: t.oauth });
    expect(tickets.json.results[0]).toMatchObject({ id: "0", label: "Support Pipeline" });
    expect(tickets.json.results[0].stages.map((s: { id: string; label: string; metadata: Record<string, string> }) => [s.id, s.label, s.metadata.ticketState])).toEqual([
      ["1", "New", "OPEN"],
      ["2", "Waiting on contact", "OPEN"],
      ["3", "Waiting on us", "OPEN"],
      ["4", "Closed", "CLOSED"],
    ]);
    expect(await rowsOf(t.portalId, "pipelines")).toBe(0);
    expect(await rowsOf(t.portalId, "pipeline_stages")).toBe(0);
  });

  it("a change stores the built-in pipeline first, and keeps its ids", async () => {
    const t = await tenant();
    const renamed = await call("PATCH", `${P}/deals/default/stages/qualifiedtobuy`, { token: t.pat, body: { label: "Qualified" } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toMatchObject({ id: "qualifiedtobuy", label: "Qualified", metadata: { probability: "0.4", isClosed: "false" } });
    expect(await rowsOf(t.portalId, "pipelines")).toBe(1);
    expect(await rowsOf(t.portalId, "pipeline_stages")).toBe(7);
    const read = await call("GET", `${P}/deals/default`, { token: t.pat });
    expect(read.json.stages.map((s: { label: string }) => s.label)).toContain("Qualified");
    expect(read.json.stages).toHaveLength(7);
  });
});

describe("created pipelines and stages", () => {
  it("create, read, add a stage, replace, update and archive, with numeric ids and an audit", async () => {
    const t = await tenant();
    const made = await newDealPipeline(t, "Renewals");
    expect(made.id).toMatch(/^\d+$/);
    expect(made.stages.map((s) => s.id).every((id) => /^\d+$/.test(id))).toBe(true);
    expect((await call("GET", `${P}/deals`, { token: t.pat })).json.results.map((p: { id: string }) => p.id)).toEqual(["default", made.id]);

    const added = await call("POST", `${P}/deals/${made.id}/stages`, { token: t.pat, body: dealStage("Lost", "0", 2) });
    expect(added.status, added.text).toBe(201);
    expect(added.json.metadata).toEqual({ probability: "0", isClosed: "false" });

    // PUT keeps the stages whose labels match, archives the others, adds the new ones.
    const [open] = made.stages;
    const replaced = await call("PUT", `${P}/deals/${made.id}?validateReferencesBeforeDelete=true`, {
      token: t.pat,
      body: { label: "Renewals 2", displayOrder: 1, stages: [dealStage("open", "0.3", 0), dealStage("Signed", "1", 1)] },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.json.stages.map((s: { id: string; label: string }) => s.label)).toEqual(["open", "Signed"]);
    expect(replaced.json.stages[0].id).toBe(open!.id);

    const patched = await call("PATCH", `${P}/deals/${made.id}`, { token: t.pat, body: { label: "Renewals 3" } });
    expect(patched.json).toMatchObject({ label: "Renewals 3", displayOrder: 1 });

    expect((await call("DELETE", `${P}/deals/${made.id}`, { token: t.pat })).status).toBe(204);
    expectError(await call("GET", `${P}/deals/${made.id}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    const restored = await call("PATCH", `${P}/deals/${made.id}`, { token: t.pat, body: { archived: false } });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.json.archived).toBe(false);

    const audit = await call("GET", `${P}/deals/${made.id}/audit`, { token: t.pat });
    expect(audit.json.results.map((a: { action: string }) => a.action)).toEqual(["RESTORE", "DELETE", "UPDATE", "UPDATE", "CREATE"]);
    expect(audit.json.results.at(-1)).toMatchObject({ identifier: made.id, portalId: t.portalId, rawObject: { id: made.id, label: "Renewals" } });
    const stageAudit = await call("GET", `${P}/deals/${made.id}/stages/${added.json.id}/audit`, { token: t.pat });
    expect(stageAudit.json.results.map((a: { action: string }) => a.action)).toEqual(["CREATE"]);
  });

  it("stages: get, replace, update metadata, archive and restore", async () => {
    const t = await tenant();
    const made = await newDealPipeline(t);
    const [open, won] = made.stages;
    const base = `${P}/deals/${made.id}/stages`;
    expect((await call("GET", base, { token: t.pat })).json.results.map((s: { id: string }) => s.id)).toEqual([open!.id, won!.id]);
    const put = await call("PUT", `${base}/${open!.id}`, { token: t.pat, body: dealStage("Talking", "0.25", 5) });
    expect(put.json).toMatchObject({ label: "Talking", displayOrder: 5, metadata: { probability: "0.25", isClosed: "false" } });
    const patch = await call("PATCH", `${base}/${open!.id}`, { token: t.pat, body: { metadata: { isClosed: "true" } } });
    expect(patch.json.metadata).toEqual({ probability: "0.25", isClosed: "true" });
    expect((await call("DELETE", `${base}/${open!.id}`, { token: t.pat })).status).toBe(204);
    expectError(await call("GET", `${base}/${open!.id}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    // The last stage stays.
    const last = expectError(await call("DELETE", `${base}/${won!.id}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(last.message).toContain("at least one stage");
    const back = await call("PATCH", `${base}/${open!.id}`, { token: t.pat, body: { archived: false } });
    expect(back.status, back.text).toBe(200);
    expect(back.json.archived).toBe(false);
  });

  it("tickets take ticketState, and the tickets scope", async () => {
    const t = await tenant();
    const made = await call("POST", `${P}/tickets`, { token: t.pat, body: { label: "Escalations", displayOrder: 2, stages: [{ label: "Open", displayOrder: 0 }, { label: "Done", displayOrder: 1, metadata: { ticketState: "CLOSED" } }] } });
    expect(made.status, made.text).toBe(201);
    expect(made.json.stages.map((s: { metadata: Record<string, string> }) => s.metadata.ticketState)).toEqual(["OPEN", "CLOSED"]);
    const dealsOnly = await tenant({ scopes: ["crm.objects.deals.read"] });
    expect((await call("GET", `${P}/deals`, { token: dealsOnly.pat })).status).toBe(200);
    expectError(await call("GET", `${P}/tickets`, { token: dealsOnly.pat }), 403, "MISSING_SCOPES");
    expectError(await call("POST", `${P}/deals`, { token: dealsOnly.pat, body: { label: "x", displayOrder: 0, stages: [dealStage("a", "0.1")] } }), 403, "MISSING_SCOPES");
  });
});

describe("bad input: a 400 naming the field, and nothing written", () => {
  const cases: [string, string, string, unknown, string][] = [
    ["a deal stage without probability", "POST", "deals", { label: "x", displayOrder: 0, stages: [{ label: "a", displayOrder: 0 }] }, "stages.0.metadata.probability"],
    ["a probability above 1", "POST", "deals", { label: "x", displayOrder: 0, stages: [dealStage("a", "1.5")] }, "stages.0.metadata.probability"],
    ["isClosed not a boolean", "POST", "deals", { label: "x", displayOrder: 0, stages: [{ label: "a", displayOrder: 0, metadata: { probability: "0.1", isClosed: "maybe" } }] }, "stages.0.metadata.isClosed"],
    ["an unknown metadata key", "POST", "deals", { label: "x", displayOrder: 0, stages: [{ label: "a", displayOrder: 0, metadata: { probability: "0.1", colour: "red" } }] }, "stages.0.metadata.colour"],
    ["a ticket state that is not OPEN or CLOSED", "POST", "tickets", { label: "x", displayOrder: 0, stages: [{ label: "a", displayOrder: 0, metadata: { ticketState: "DONE" } }] }, "stages.0.metadata.ticketState"],
    ["two stages with one label", "POST", "deals", { label: "x", displayOrder: 0, stages: [dealStage("Same", "0.1"), dealStage("same", "0.2")] }, "stages.1.label"],
    ["no stages", "POST", "deals", { label: "x", displayOrder: 0, stages: [] }, "stages"],
    ["no label", "POST", "deals", { displayOrder: 0, stages: [dealStage("a", "0.1")] }, "label"],
    ["a displayOrder that is not a whole number", "POST", "deals", { label: "x", displayOrder: 1.5, stages: [dealStage("a", "0.1")] }, "displayOrder"],
  ];
  it.each(cases)("%s", async (_name, method, type, body, field) => {
    const t = await tenant();
    const res = await call(method, `${P}/${type}`, { token: t.pat, body });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(err)).toContain(field);
    expect(await rowsOf(t.portalId, "pipelines")).toBe(0);
  });

  it("an unknown object type, and archived sent to a live pipeline", async () => {
    const t = await tenant();
    expect(expectError(await call("GET", `${P}/contacts`, { token: t.pat }), 400, "VALIDATION_ERROR").message).toContain("objectType");
    const err = expectError(await call("PATCH", `${P}/deals/default`, { token: t.pat, body: { archived: true } }), 400, "VALIDATION_ERROR");
    expect(JSON.stringify(err.errors)).toContain("archived");
  });

  it("a pipeline label another live pipeline has is a 409, and the default pipeline is never archived", async () => {
    const t = await tenant();
    expectError(await call("POST", `${P}/deals`, { token: t.pat, body: { label: "sales pipeline", displayOrder: 0, stages: [dealStage("a", "0.1")] } }), 409, "CONFLICT");
    expectError(await call("DELETE", `${P}/deals/default`, { token: t.pat }), 400, "VALIDATION_ERROR");
  });
});

describe("record values", () => {
  it("deals: an unknown pipeline, an unknown stage or a stage of another pipeline is a 400 naming the field", async () => {
    const t = await tenant();
    const made = await newDealPipeline(t);
    const bad = async (properties: Record<string, string>, field: string) => {
      const err = expectError(await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { dealname: "x", ...properties } } }), 400, "VALIDATION_ERROR");
      expect(err.errors.flatMap((e: { context: { propertyName: string[] } }) => e.context.propertyName)).toEqual([field]);
      return err;
    };
    await bad({ pipeline: "nope" }, "properties.pipeline");
    await bad({ dealstage: "won" }, "properties.dealstage");
    // A stage without a pipeline is checked against the default pipeline on create.
    const other = await bad({ dealstage: made.stages[0]!.id }, "properties.dealstage");
    expect(other.errors[0].message).toContain(`pipeline ${made.id}`);
    await bad({ pipeline: made.id, dealstage: "closedwon" }, "properties.dealstage");
    await newDeal(t, { dealname: "ok", dealstage: "closedwon" });
    const inNew = await newDeal(t, { dealname: "ok2", pipeline: made.id, dealstage: made.stages[0]!.id });
    // On update, a stage alone is checked against the record's own pipeline.
    expect((await call("PATCH", `/crm/v3/objects/deals/${inNew}`, { token: t.pat, body: { properties: { dealstage: made.stages[1]!.id } } })).status).toBe(200);
    expectError(await call("PATCH", `/crm/v3/objects/deals/${inNew}`, { token: t.pat, body: { properties: { dealstage: "closedwon" } } }), 400, "VALIDATION_ERROR");
    // Moving to another pipeline without a stage that fits is refused; with one it is taken.
    expectError(await call("PATCH", `/crm/v3/objects/deals/${inNew}`, { token: t.pat, body: { properties: { pipeline: "default" } } }), 400, "VALIDATION_ERROR");
    expect((await call("PATCH", `/crm/v3/objects/deals/${inNew}`, { token: t.pat, body: { properties: { pipeline: "default", dealstage: "closedlost" } } })).status).toBe(200);
    // Batch: the input is named.
    const batch = expectError(
      await call("POST", "/crm/v3/objects/deals/batch/create", { token: t.pat, body: { inputs: [{ properties: { dealname: "a" } }, { properties: { dealname: "b", dealstage: "nope" } }] } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(batch.errors[0].context.propertyName).toEqual(["inputs.1.properties.dealstage"]);
  });

  it("tickets: hs_pipeline and hs_pipeline_stage", async () => {
    const t = await tenant();
    expect((await call("POST", "/crm/v3/objects/tickets", { token: t.pat, body: { properties: { subject: "s", hs_pipeline: "0", hs_pipeline_stage: "1" } } })).status).toBe(201);
    const err = expectError(await call("POST", "/crm/v3/objects/tickets", { token: t.pat, body: { properties: { subject: "s", hs_pipeline_stage: "9" } } }), 400, "VALIDATION_ERROR");
    expect(err.errors[0].context.propertyName).toEqual(["properties.hs_pipeline_stage"]);
  });

  it("the properties API lists pipelines and stages as the options", async () => {
    const t = await tenant();
    const made = await newDealPipeline(t, "Options");
    const pipeline = await call("GET", "/crm/v3/properties/deals/pipeline", { token: t.pat });
    expect(pipeline.json.options.map((o: { value: string; label: string }) => [o.value, o.label])).toEqual([["default", "Sales Pipeline"], [made.id, "Options"]]);
    const stage = await call("GET", "/crm/v3/properties/deals/dealstage", { token: t.pat });
    expect(stage.json.options.map((o: { value: string }) => o.value)).toEqual([...["appointmentscheduled", "qualifiedtobuy", "presentationscheduled", "decisionmakerboughtin", "contractsent", "closedwon", "closedlost"], ...made.stages.map((s) => s.id)]);
    const tickets = await call("GET", "/crm/v3/properties/tickets", { token: t.pat });
    expect(tickets.json.results.find((p: { name: string }) => p.name === "hs_pipeline_stage").options).toHaveLength(4);
  });

  it("archiving a stage or pipeline that records use is a 400 naming them", async () => {
    const t = await tenant();
    const made = await newDealPipeline(t);
    const deal = await newDeal(t, { dealname: "held", pipeline: made.id, dealstage: made.stages[0]!.id });
    const stage = expectError(await call("DELETE", `${P}/deals/${made.id}/stages/${made.stages[0]!.id}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(stage.message).toContain(deal);
    expect(stage.context.objectIds).toEqual([deal]);
    const pipeline = expectError(await call("DELETE", `${P}/deals/${made.id}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(pipeline.message).toContain(deal);
    const builtIn = await newDeal(t, { dealname: "won", dealstage: "closedwon" });
    expect(expectError(await call("DELETE", `${P}/deals/default/stages/closedwon`, { token: t.pat }), 400, "VALIDATION_ERROR").message).toContain(builtIn);
    // Once the record leaves, the stage goes.
    await call("PATCH", `/crm/v3/objects/deals/${deal}`, { token: t.pat, body: { properties: { dealstage: made.stages[1]!.id } } });
    expect((await call("DELETE", `${P}/deals/${made.id}/stages/${made.stages[0]!.id}`, { token: t.pat })).status).toBe(204);
  });
});

describe("the ecommerce pipeline", () => {
  it("is one of the account's deal pipelines once it has a store, read-only here", async () => {
    const { t } = await bridgeTenant();
    const list = await call("GET", `${P}/deals`, { token: t.pat });
    const ecommerce = list.json.results.find((p: { id: string }) => p.id === "ecommerce");
    expect(ecommerce).toMatchObject({ label: "Ecommerce Pipeline" });
    expect(ecommerce.stages.map((s: { id: string }) => s.id)).toEqual(["checkout_abandoned", "checkout_pending", "checkout_completed", "processed", "shipped", "cancelled"]);
    expect(ecommerce.stages[0].writePermissions).toBe("READ_ONLY");
    expectError(await call("PATCH", `${P}/deals/ecommerce`, { token: t.pat, body: { label: "Shop" } }), 400, "VALIDATION_ERROR");
    expect((await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { dealname: "d", pipeline: "ecommerce", dealstage: "shipped" } } })).status).toBe(201);
  });
});

describe("isolation", () => {
  it("another account cannot read, change or use a pipeline", async () => {
    const a = await tenant();
    const b = await tenant();
    const made = await newDealPipeline(a, "A's pipeline");
    const stage = made.stages[0]!.id;
    expectError(await call("GET", `${P}/deals/${made.id}`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `${P}/deals/${made.id}/stages/${stage}`, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("PATCH", `${P}/deals/${made.id}`, { token: b.pat, body: { label: "B" } }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${P}/deals/${made.id}/stages/${stage}`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `${P}/deals/${made.id}/audit`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", `${P}/deals`, { token: b.pat })).json.results.map((p: { id: string }) => p.id)).toEqual(["default"]);
    expectError(await call("POST", "/crm/v3/objects/deals", { token: b.pat, body: { properties: { pipeline: made.id, dealstage: stage } } }), 400, "VALIDATION_ERROR");
    expect((await call("GET", `${P}/deals/${made.id}`, { token: a.pat })).json.label).toBe("A's pipeline");
  });
});

describe("the web app", () => {
  it("the deals list and the deal page show the stage and pipeline labels", async () => {
    const t = await tenant();
    const made = await newDealPipeline(t, "Partners");
    const id = await newDeal(t, { dealname: "Labelled", pipeline: made.id, dealstage: made.stages[1]!.id });
    const b = await signIn(t);
    const dealPage = (await page(b, `/app/deals/${id}`)).text;
    expect(dealPage).toContain(`<div><dt>Stage</dt><dd><span class="stage stage-${made.stages[1]!.id}">Won</span></dd></div><div><dt>Pipeline</dt><dd>Partners</dd></div>`);
    const list = (await page(b, "/app/deals")).text;
    expect(list).toContain(`<span class="stage stage-${made.stages[1]!.id}">Won</span>`);
  });

  it("a stage renamed through the v3 API shows renamed on the deal page (two faces, one stage)", async () => {
    const t = await tenant();
    const id = await newDeal(t, { dealname: "Renamed", dealstage: "contractsent" });
    const b = await signIn(t);
    expect((await page(b, `/app/deals/${id}`)).text).toContain(`<span class="stage stage-contractsent">Contract Sent</span></dd></div><div><dt>Pipeline</dt><dd>Sales Pipeline</dd>`);
    expect((await call("PATCH", `${P}/deals/default/stages/contractsent`, { token: t.pat, body: { label: "Paperwork out" } })).status).toBe(200);
    expect((await call("PATCH", `${P}/deals/default`, { token: t.pat, body: { label: "Direct sales" } })).status).toBe(200);
    expect((await page(b, `/app/deals/${id}`)).text).toContain(`<span class="stage stage-contractsent">Paperwork out</span></dd></div><div><dt>Pipeline</dt><dd>Direct sales</dd>`);
  });

  it("the tickets list and the ticket page show the stage by its label and the pipeline, and a renamed stage renamed", async () => {
    const t = await tenant();
    const made = await call("POST", "/crm/v3/objects/tickets", { token: t.pat, body: { properties: { subject: "Printer on fire", hs_pipeline: "0", hs_pipeline_stage: "2" } } });
    expect(made.status, made.text).toBe(201);
    const b = await signIn(t);
    const ticketPage = (await page(b, `/app/tickets/${made.json.id}`)).text;
    expect(ticketPage).toContain(`<dl class="summary" aria-label="Ticket summary"><div><dt>Stage</dt><dd><span class="stage stage-2">Waiting on contact</span></dd></div><div><dt>Pipeline</dt><dd>Support Pipeline</dd></div></dl>`);
    const list = (await page(b, "/app/tickets")).text;
    expect(list).toContain(`<td role="cell" data-label="Stage"><span><span class="stage stage-2">Waiting on contact</span></span></td>`);
    expect((await call("PATCH", `${P}/tickets/0/stages/2`, { token: t.pat, body: { label: "Waiting on customer" } })).status).toBe(200);
    expect((await page(b, "/app/tickets")).text).toContain(`<span class="stage stage-2">Waiting on customer</span>`);
  });
});
