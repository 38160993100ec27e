/**
 * Provisioning through the operator API (`/admin/v1/...`, Bearer ADMIN_TOKEN), as test/helpers/api.ts does,
 * and the ecommerce set-up through the public API: app settings with the developer key, a store.
 */
export const BRIDGE = "/extensions/ecomm/v2";

async function ok(res, what) {
  if (res.status >= 300) throw new Error(`${what} -> ${res.status} ${res.text}`);
  return res.json;
}

/**
 * An account (rate limit raised to the operator maximum: the bench measures the service, not the 110/10 s
 * policy), an installed app, a user. `shard` places the account on that shard database; without it the
 * placement policy chooses; `accountType` (e.g. DEVELOPER_TEST) makes a test account of it.
 */
export async function provisionTenant(http, adminToken, name, { shard, accountType } = {}) {
  const admin = (method, path, body) => http.json(method, path, { token: adminToken, body }).then((r) => ok(r, `${method} ${path}`));
  const acct = await admin("POST", "/admin/v1/accounts", { name, rateLimit: 100_000, ...(shard ? { shard } : {}), ...(accountType ? { accountType } : {}) });
  const app = await admin("POST", "/admin/v1/apps", { name: `${name}-app`, redirectUris: ["https://app.example.com/callback"] });
  const install = await admin("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { appId: app.appId });
  const user = await admin("POST", `/admin/v1/accounts/${acct.portalId}/users`, { email: `${name}@bench.example.com` });
  return { portalId: acct.portalId, shard: acct.shard, appId: app.appId, developerKey: app.developerKey, oauth: install.access_token, userId: user.userId };
}

/**
 * Every required property mapped (settings can be enabled only once each object type's required properties
 * are mapped: CONTACT email, DEAL dealstage, LINE_ITEM its deal and product); the bench syncs products.
 */
export const MAPPINGS = {
  CONTACT: { properties: [{ externalPropertyName: "email", servicePropertyName: "email", dataType: "STRING" }] },
  LINE_ITEM: {
    properties: [
      { externalPropertyName: "deal_id", servicePropertyName: "hs_assoc__deal_id", dataType: "STRING" },
      { externalPropertyName: "product_id", servicePropertyName: "hs_assoc__product_id", dataType: "STRING" },
    ],
  },
  PRODUCT: {
    properties: [
      { externalPropertyName: "title", servicePropertyName: "name", dataType: "STRING" },
      { externalPropertyName: "price", servicePropertyName: "price", dataType: "NUMBER" },
    ],
  },
  DEAL: { properties: [{ externalPropertyName: "stage", servicePropertyName: "dealstage", dataType: "STRING" }] },
};

export async function ecommSetup(http, t, storeIds) {
  await ok(
    await http.json("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: { enabled: true, webhookUri: null, mappings: MAPPINGS } }),
    "PUT settings",
  );
  for (const id of storeIds) await ok(await http.json("PUT", `${BRIDGE}/stores`, { token: t.oauth, body: { id, label: id } }), `PUT store ${id}`);
}
