/** The web app names owners (docs/reference/web.md): the deals list's Owner column, and the deal and contact pages. */
import { describe, expect, it } from "vitest";
import { admin, call, tenant, unique } from "../helpers/api";
import { page, signIn } from "../web/helpers";

describe("owners in the web app", () => {
  it("the deals list, the deal page and the contact page show the owner's name; an archived owner is still named", async () => {
    const t = await tenant();
    const made = await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email: `${unique("w")}@example.com`, firstName: "Katherine", lastName: "<Johnson>" });
    const ownerId = (await call("GET", `/crm/v3/owners/${made.userId}?idProperty=userId`, { token: t.pat })).json.id as string;
    const deal = (await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { dealname: "Orbit", hubspot_owner_id: ownerId } } })).json.id as string;
    const contact = (await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "Dorothy", hubspot_owner_id: ownerId } } })).json.id as string;
    const b = await signIn(t);
    const list = await page(b, "/app/deals");
    expect(list.text).toContain('data-label="Owner"><span>Katherine &lt;Johnson&gt;</span>');
    expect((await page(b, `/app/deals/${deal}`)).text).toContain('<span class="owner-name">Katherine &lt;Johnson&gt;</span>');
    expect((await page(b, `/app/contacts/${contact}`)).text).toContain('<span class="owner-name">Katherine &lt;Johnson&gt;</span>');
    await admin("DELETE", `/admin/v1/accounts/${t.portalId}/users/${made.userId}`);
    expect((await page(b, `/app/deals/${deal}`)).text).toContain("Katherine &lt;Johnson&gt; (deactivated)");
  });
});
