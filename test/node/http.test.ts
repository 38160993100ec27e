import { describe, expect, it } from "vitest";
import { integratorUrl, tenant, workerUrl } from "./helpers";

describe("the Worker over real HTTP (wrangler unstable_startWorker)", () => {
  it("serves the v1 contact list to a provisioned tenant", async () => {
    const t = await tenant();
    const created = await fetch(`${workerUrl()}/crm/v3/objects/contacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" },
      body: JSON.stringify({ properties: { email: "http@example.com" } }),
    });
    expect(created.status).toBe(201);
    const res = await fetch(`${workerUrl()}/contacts/v1/lists/all/contacts/all`, { headers: { authorization: `Bearer ${t.pat}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { contacts: { vid: number }[] };
    expect(body.contacts).toHaveLength(1);
  });

  it("shares the local integrator with the workers project", async () => {
    const res = await fetch(`${integratorUrl()}/__requests?path=/nothing`);
    expect(await res.json()).toEqual([]);
  });
});
