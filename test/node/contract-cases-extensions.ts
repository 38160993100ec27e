/**
 * Contract cases (see contract-cases.ts) of the app extension settings: each case works on an app of its own
 * (a fresh tenant), so a document one case creates is never in another's way.
 */
import type { Case } from "./contract-cases";
import { tenant, type NodeTenant } from "./helpers";
import { api, ok } from "./contract-fixtures";

const C = "/crm/v3/extensions/calling";
const V = "/crm/v3/extensions/videoconferencing/settings";
const docs: Record<string, unknown> = {
  "": { name: "Dialer", url: "https://dial.example.com/widget" },
  "/recording": { urlToRetrieveAuthedRecording: "https://dial.example.com/rec/%s" },
  "/channel-connection": { url: "https://dial.example.com/channel", isReady: true },
};

/** A fresh app holding the calling document at `suffix`. */
async function holding(suffix: string): Promise<NodeTenant> {
  const t = await tenant();
  await ok(api("POST", `${C}/${t.appId}/settings${suffix}`, { token: t.developerKey, json: docs[suffix] }));
  return t;
}

function callingCases(): Record<string, Case> {
  const out: Record<string, Case> = {};
  for (const [suffix, json] of Object.entries(docs)) {
    const key = (m: string) => `${m} ${C}/{appId}/settings${suffix}`;
    const own = (t: NodeTenant) => ({ token: t.developerKey, params: { appId: t.appId } });
    out[key("POST")] = {
      ok: async () => ({ ...own(await tenant()), json }),
      // The app holds this document already.
      errors: { 409: async () => ({ ...own(await holding(suffix)), json }) },
    };
    out[key("GET")] = { ok: async () => own(await holding(suffix)) };
    out[key("PATCH")] = { ok: async () => ({ ...own(await holding(suffix)), json }) };
    if (suffix !== "/recording") out[key("DELETE")] = { ok: async () => own(await holding(suffix)) };
  }
  return out;
}

async function withVideo(): Promise<NodeTenant> {
  const t = await tenant();
  await ok(api("PUT", `${V}/${t.appId}`, { token: t.developerKey, json: { createMeetingUrl: "https://meet.example.com/c" } }));
  return t;
}

export const EXTENSION_CASES: Record<string, Case> = {
  ...callingCases(),
  "GET /crm/v3/extensions/videoconferencing/settings/{appId}": {
    ok: async () => {
      const t = await withVideo();
      return { token: t.developerKey, params: { appId: t.appId } };
    },
  },
  "PUT /crm/v3/extensions/videoconferencing/settings/{appId}": {
    ok: async () => {
      const t = await tenant();
      return { token: t.developerKey, params: { appId: t.appId }, json: { createMeetingUrl: "https://meet.example.com/c" } };
    },
  },
  "DELETE /crm/v3/extensions/videoconferencing/settings/{appId}": {
    ok: async () => {
      const t = await withVideo();
      return { token: t.developerKey, params: { appId: t.appId } };
    },
  },
};
