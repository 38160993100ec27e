/**
 * Contract cases (see contract-cases.ts) of the app extension settings: each case works on an app of its own,
 * so a document one case creates is never in another's way. The settings are the app's, reached with its
 * developer key: the app needs no account, and a whole tenant per request would make these the file's slowest cases.
 */
import type { Case } from "./contract-cases";
import { developerApp as freshApp } from "./helpers";
import { api, ok } from "./contract-fixtures";

type App = Awaited<ReturnType<typeof freshApp>>;

const C = "/crm/v3/extensions/calling";
const V = "/crm/v3/extensions/videoconferencing/settings";
const docs: Record<string, unknown> = {
  "": { name: "Dialer", url: "https://dial.example.com/widget" },
  "/recording": { urlToRetrieveAuthedRecording: "https://dial.example.com/rec/%s" },
  "/channel-connection": { url: "https://dial.example.com/channel", isReady: true },
};

/** A fresh app holding the calling document at `suffix`. */
async function holding(suffix: string): Promise<App> {
  const t = await freshApp();
  await ok(api("POST", `${C}/${t.appId}/settings${suffix}`, { token: t.developerKey, json: docs[suffix] }));
  return t;
}

function callingCases(): Record<string, Case> {
  const out: Record<string, Case> = {};
  for (const [suffix, json] of Object.entries(docs)) {
    const key = (m: string) => `${m} ${C}/{appId}/settings${suffix}`;
    const own = (t: App) => ({ token: t.developerKey, params: { appId: t.appId } });
    out[key("POST")] = {
      ok: async () => ({ ...own(await freshApp()), json }),
      // The app holds this document already.
      errors: { 409: async () => ({ ...own(await holding(suffix)), json }) },
    };
    out[key("GET")] = { ok: async () => own(await holding(suffix)) };
    out[key("PATCH")] = { ok: async () => ({ ...own(await holding(suffix)), json }) };
    if (suffix !== "/recording") out[key("DELETE")] = { ok: async () => own(await holding(suffix)) };
  }
  return out;
}

async function withVideo(): Promise<App> {
  const t = await freshApp();
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
      const t = await freshApp();
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
