import { authSuite } from "../helpers/auth-suite";
import { call, type Tenant } from "../helpers/api";

const contact = async (t: Tenant) => (await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "x" } } })).json.id;

authSuite("GET /contacts/v1/lists/all/contacts/all", {
  method: "GET",
  path: () => "/contacts/v1/lists/all/contacts/all",
  withoutScope: ["oauth", "timeline"],
});
authSuite("POST /crm/v3/objects/contacts", {
  method: "POST",
  path: () => "/crm/v3/objects/contacts",
  body: { properties: {} },
  withoutScope: ["oauth", "crm.objects.contacts.read"],
});
authSuite("GET /crm/v3/objects/contacts/{id}", {
  method: "GET",
  path: async (t) => `/crm/v3/objects/contacts/${await contact(t)}`,
  withoutScope: ["oauth"],
});
authSuite("PATCH /crm/v3/objects/contacts/{id}", {
  method: "PATCH",
  path: async (t) => `/crm/v3/objects/contacts/${await contact(t)}`,
  body: { properties: { firstname: "y" } },
  withoutScope: ["oauth", "crm.objects.contacts.read"],
});
authSuite("DELETE /crm/v3/objects/contacts/{id}", {
  method: "DELETE",
  path: async (t) => `/crm/v3/objects/contacts/${await contact(t)}`,
  withoutScope: ["oauth", "crm.objects.contacts.read"],
});
authSuite("GET /crm/v3/objects/tickets", { method: "GET", path: () => "/crm/v3/objects/tickets", withoutScope: ["oauth", "contacts"] });
