/** The deals board: columns per stage with counts and sums, the pipeline switcher, and the move form (CSRF, validation, isolation). */
import { describe, expect, it } from "vitest";
import { admin, call, tenant, unique, type Tenant } from "../helpers/api";
import { page, signIn, type Browser } from "./helpers";

async function deal(t: Tenant, properties: Record<string, string>) {
  const res = await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

async function pipeline(t: Tenant, label: string, stages: string[]) {
  const res = await call("POST", "/crm/v3/pipelines/deals", {
    token: t.pat,
    body: { label, displayOrder: 5, stages: stages.map((s, i) => ({ label: s, displayOrder: i, metadata: { probability: "0.5" } })) },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.json.id as string, stages: (res.json.stages as { id: string; label: string }[]).map((s) => s.id) };
}

const stageOf = async (t: Tenant, id: string) => (await call("GET", `/crm/v3/objects/deals/${id}?properties=dealstage,pipeline`, { token: t.pat })).json.properties.dealstage as string;

function move(b: Browser | null, id: string, fields: Record<string, string>) {
  return call("POST", `/app/deals/${id}/move`, {
    raw: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...(b ? { cookie: b.cookie } : {}) },
  });
}

/** The columns of a board page: `[stage label, "N deals · sum", card names]`. */
function columns(html: string) {
  return [...html.matchAll(/<section class="board-column"[\s\S]*?<\/section>/g)].map(([s]) => [
    /<span class="stage[^"]*">([^<]*)<\/span><\/h2>/.exec(s)?.[1],
    /<p class="column-meta">([^<]*)<span class="column-sum">([^<]*)<\/span>/.exec(s)?.slice(1).join(""),
    [...s.matchAll(/<a class="deal-name" href="\/app\/deals\/\d+">([^<]*)<\/a>/g)].map((m) => m[1]),
  ]);
}

describe("GET /app/deals/board", () => {
  it("shows one column per stage of the chosen pipeline with counts, sums and cards (name, amount, owner); the switcher lists the pipelines", async () => {
    const t = await tenant();
    const made = await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email: `${unique("o")}@example.com`, firstName: "Katherine", lastName: "<Johnson>" });
    const ownerId = (await call("GET", `/crm/v3/owners/${made.userId}?idProperty=userId`, { token: t.pat })).json.id as string;
    const p = await pipeline(t, "Partners", ["Talking", "Signed <ok>"]);
    await deal(t, { dealname: "Orbit", amount: "1000.5", pipeline: p.id, dealstage: p.stages[0]!, hubspot_owner_id: ownerId, deal_currency_code: "EUR" });
    await deal(t, { dealname: "Moon <b>", amount: "20", pipeline: p.id, dealstage: p.stages[0]!, deal_currency_code: "EUR" });
    await deal(t, { dealname: "Mars", pipeline: p.id, dealstage: p.stages[1]! });
    // The built-in pipeline's board has the deals written without a pipeline.
    await deal(t, { dealname: "Default one", amount: "7", dealstage: "appointmentscheduled" });
    const b = await signIn(t);
    const res = await page(b, `/app/deals/board?pipeline=${p.id}`);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(columns(res.text)).toEqual([
      ["Talking", "2 deals · €1,020.50", ["Orbit", "Moon &lt;b&gt;"]],
      ["Signed &lt;ok&gt;", "1 deal · 0.00", ["Mars"]],
    ]);
    expect(res.text).toContain('<p class="deal-amount">€1,000.50</p><p class="deal-owner"><span class="visually-hidden">Owner: </span>Katherine &lt;Johnson&gt;</p>');
    expect(res.text).toContain(`<option value="${p.id}" selected>Partners</option>`);
    expect(res.text).toContain(`<option value="default">Sales Pipeline</option>`);
    expect(res.text).toContain('<script type="module" src="/static/board.js"></script>');
    const builtIn = columns((await page(b, "/app/deals/board")).text);
    expect(builtIn.map((c) => c[0])).toEqual(["Appointment Scheduled", "Qualified To Buy", "Presentation Scheduled", "Decision Maker Bought-In", "Contract Sent", "Closed Won", "Closed Lost"]);
    expect(builtIn[0]).toEqual(["Appointment Scheduled", "1 deal · 7.00", ["Default one"]]);
    const missing = await page(b, "/app/deals/board?pipeline=nope");
    expect(missing.status).toBe(404);
    expect((await page(b, "/app/deals/board?pipeline=%3Cx%3E")).status).toBe(400);
  });

  it("a column with many deals shows the first 20 and says how many more, linking to the filtered list", async () => {
    const t = await tenant();
    const inputs = Array.from({ length: 23 }, (_, i) => ({ properties: { dealname: `Bulk ${i}`, amount: "10", dealstage: "contractsent" } }));
    expect((await call("POST", "/crm/v3/objects/deals/batch/create", { token: t.pat, body: { inputs } })).status).toBe(201);
    const b = await signIn(t);
    const html = (await page(b, "/app/deals/board")).text;
    const sent = columns(html).find((c) => c[0] === "Contract Sent")!;
    expect(sent[1]).toBe("23 deals · 230.00");
    expect(sent[2]).toHaveLength(20);
    expect(html).toContain(`3 more deals not shown: <a href="/app/deals?fp=dealstage&amp;fo=EQ&amp;fv=contractsent&amp;fh=">all Contract Sent deals</a>`);
  });
});

describe("POST /app/deals/:objectId/move", () => {
  it("moves a deal with the session's CSRF token and comes back to the board (303); the API sees the new stage", async () => {
    const t = await tenant();
    const id = await deal(t, { dealname: "Orbit", dealstage: "appointmentscheduled" });
    const b = await signIn(t);
    const board = (await page(b, "/app/deals/board")).text;
    expect(board).toContain(`<form class="move" method="post" action="/app/deals/${id}/move"><input type="hidden" name="csrf" value="${b.csrf}"><input type="hidden" name="pipeline" value="default">`);
    const res = await move(b, id, { csrf: b.csrf, pipeline: "default", dealstage: "contractsent" });
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get("location")).toBe(`/app/deals/board?pipeline=default#deal-${id}`);
    expect(await stageOf(t, id)).toBe("contractsent");
    const after = columns((await page(b, "/app/deals/board")).text);
    expect(after.find((c) => c[0] === "Contract Sent")![2]).toEqual(["Orbit"]);
    expect(after.find((c) => c[0] === "Appointment Scheduled")![1]).toBe("0 deals · 0.00");
  });

  it.each([
    ["no CSRF token", {}, 403],
    ["another session's CSRF token", { csrf: "x".repeat(43) }, 403],
  ])("refuses a move with %s (403) and writes nothing", async (_name, fields, status) => {
    const t = await tenant();
    const id = await deal(t, { dealname: "Orbit", dealstage: "appointmentscheduled" });
    const b = await signIn(t);
    const res = await move(b, id, { ...fields, dealstage: "closedwon" });
    expect(res.status).toBe(status);
    expect(res.json.category).toBe("FORBIDDEN");
    expect(await stageOf(t, id)).toBe("appointmentscheduled");
  });

  it("refuses a stage that is not one of the deal's pipeline with a 400 page naming it, and writes nothing", async () => {
    const t = await tenant();
    const p = await pipeline(t, "Partners", ["Talking", "Signed"]);
    const id = await deal(t, { dealname: "Orbit", dealstage: "appointmentscheduled" });
    const b = await signIn(t);
    const res = await move(b, id, { csrf: b.csrf, dealstage: p.stages[1]! });
    expect(res.status).toBe(400);
    expect(res.text).toContain("<h1>The deal was not moved</h1>");
    expect(res.text).toContain(`is a stage of pipeline ${p.id}, not of pipeline default`);
    const none = await move(b, id, { csrf: b.csrf });
    expect(none.status).toBe(400);
    expect(none.text).toContain("dealstage: choose a stage");
    expect(await stageOf(t, id)).toBe("appointmentscheduled");
  });

  it("answers another account's deal, a missing one and a malformed id with the 404 page, and writes nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const theirs = await deal(other, { dealname: "Theirs", dealstage: "appointmentscheduled" });
    const b = await signIn(t);
    for (const id of [theirs, "999999999999", "abc"]) {
      const res = await move(b, id, { csrf: b.csrf, dealstage: "closedwon" });
      expect(res.status, id).toBe(404);
      expect(res.text).toContain("There is no such deal.");
      expect(res.text).not.toContain("Theirs");
    }
    expect(await stageOf(other, theirs)).toBe("appointmentscheduled");
  });

  it("sends a signed-out post to sign in and back to the board", async () => {
    const t = await tenant();
    const id = await deal(t, { dealname: "Orbit", dealstage: "appointmentscheduled" });
    const res = await move(null, id, { dealstage: "closedwon", pipeline: "default" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/login?next=${encodeURIComponent("/app/deals/board?pipeline=default")}`);
    expect(await stageOf(t, id)).toBe("appointmentscheduled");
  });
});
