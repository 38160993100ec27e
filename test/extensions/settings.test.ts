/**
 * App extension settings (docs/reference/extensions.md): the calling extension's settings, recording settings and
 * channel connection, and the video conferencing settings; exact statuses, 400s naming the field, the outbound
 * guard, and another app's id refused with nothing written.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { integratorUrl } from "../helpers/integrator";

const calling = (appId: number) => `/crm/v3/extensions/calling/${appId}/settings`;
const video = (appId: number) => `/crm/v3/extensions/videoconferencing/settings/${appId}`;

/** A developer-key call, with the key as `?hapikey=` (what the official client sends). */
const dev = (t: Tenant, method: string, path: string, body?: unknown) => call(method, `${path}?hapikey=${encodeURIComponent(t.developerKey)}`, { body });

describe("video conferencing settings", () => {
  it("GET before PUT is a 404; PUT answers 200 with the settings; GET reads them; DELETE answers 204", async () => {
    const t = await tenant();
    expectError(await dev(t, "GET", video(t.appId)), 404, "OBJECT_NOT_FOUND");
    const body = { createMeetingUrl: "https://meet.example.com/create", deleteMeetingUrl: "https://meet.example.com/delete" };
    const put = await dev(t, "PUT", video(t.appId), body);
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual(body);
    expect((await dev(t, "GET", video(t.appId))).json).toEqual(body);
    // PUT replaces the whole document: a URL left out is gone.
    const replaced = await dev(t, "PUT", video(t.appId), { createMeetingUrl: "https://meet.example.com/c2", userVerifyUrl: "https://meet.example.com/v" });
    expect(replaced.json).toEqual({ createMeetingUrl: "https://meet.example.com/c2", userVerifyUrl: "https://meet.example.com/v" });
    expect((await dev(t, "DELETE", video(t.appId))).status).toBe(204);
    expectError(await dev(t, "GET", video(t.appId)), 404, "OBJECT_NOT_FOUND");
    expectError(await dev(t, "DELETE", video(t.appId)), 404, "OBJECT_NOT_FOUND");
  });

  it.each([
    ["createMeetingUrl missing", { updateMeetingUrl: "https://meet.example.com/u" }, "createMeetingUrl"],
    ["createMeetingUrl not a URL", { createMeetingUrl: "not a url" }, "createMeetingUrl"],
    ["plain http to a public host", { createMeetingUrl: "http://meet.example.com/c" }, "createMeetingUrl"],
    ["a private host", { createMeetingUrl: "https://meet.example.com/c", fetchAccountsUri: "https://10.0.0.7/a" }, "fetchAccountsUri"],
    ["a URL a number", { createMeetingUrl: "https://meet.example.com/c", userVerifyUrl: 7 }, "userVerifyUrl"],
  ])("refuses %s with a 400 naming the field, nothing stored", async (_name, body, field) => {
    const t = await tenant();
    const err = expectError(await dev(t, "PUT", video(t.appId), body), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
    expectError(await dev(t, "GET", video(t.appId)), 404, "OBJECT_NOT_FOUND");
  });

  it("admits loopback only because this environment sets ALLOW_LOOPBACK_OUTBOUND=true", async () => {
    const t = await tenant();
    expect((await dev(t, "PUT", video(t.appId), { createMeetingUrl: `${integratorUrl()}/meet` })).status).toBe(200);
  });

  it("refuses another app's id (404) and writes nothing to it; an account token is a 403", async () => {
    const [a, b] = [await tenant(), await tenant()];
    expectError(await dev(a, "PUT", video(b.appId), { createMeetingUrl: "https://meet.example.com/c" }), 404, "OBJECT_NOT_FOUND");
    expectError(await dev(a, "GET", video(b.appId)), 404, "OBJECT_NOT_FOUND");
    expectError(await dev(b, "GET", video(b.appId)), 404, "OBJECT_NOT_FOUND");
    expect((await dev(b, "PUT", video(b.appId), { createMeetingUrl: "https://meet.example.com/b" })).status).toBe(200);
    expectError(await dev(a, "DELETE", video(b.appId)), 404, "OBJECT_NOT_FOUND");
    expect((await dev(b, "GET", video(b.appId))).json).toEqual({ createMeetingUrl: "https://meet.example.com/b" });
    expectError(await call("GET", video(b.appId), { token: b.oauth }), 403, "FORBIDDEN");
  });
});

describe("calling settings", () => {
  it("POST answers 200 with the defaults filled in; a second POST is a 409; PATCH merges; DELETE answers 204", async () => {
    const t = await tenant();
    expectError(await dev(t, "GET", calling(t.appId)), 404, "OBJECT_NOT_FOUND");
    expectError(await dev(t, "PATCH", calling(t.appId), { width: 300 }), 404, "OBJECT_NOT_FOUND");
    const made = await dev(t, "POST", calling(t.appId), { name: "Dialer", url: "https://dial.example.com/widget", height: 500 });
    expect(made.status, made.text).toBe(200);
    expect(made.json).toMatchObject({ name: "Dialer", url: "https://dial.example.com/widget", height: 500, width: 400, isReady: true, supportsCustomObjects: false, supportsInboundCalling: false, usesCallingWindow: true, usesRemote: true });
    expect(made.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expectError(await dev(t, "POST", calling(t.appId), { name: "Other", url: "https://dial.example.com/o" }), 409, "CONFLICT");
    const patched = await dev(t, "PATCH", calling(t.appId), { isReady: false, width: 320 });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ name: "Dialer", height: 500, width: 320, isReady: false, createdAt: made.json.createdAt });
    expect((await dev(t, "GET", calling(t.appId))).json).toEqual(patched.json);
    expect((await dev(t, "DELETE", calling(t.appId))).status).toBe(204);
    expectError(await dev(t, "GET", calling(t.appId)), 404, "OBJECT_NOT_FOUND");
  });

  it.each([
    ["name missing", { url: "https://dial.example.com/w" }, "name"],
    ["url missing", { name: "D" }, "url"],
    ["url on a private host", { name: "D", url: "https://192.168.1.1/w" }, "url"],
    ["width fractional", { name: "D", url: "https://dial.example.com/w", width: 1.5 }, "width"],
    ["isReady a string", { name: "D", url: "https://dial.example.com/w", isReady: "yes" }, "isReady"],
  ])("POST refuses %s with a 400 naming the field, nothing stored", async (_name, body, field) => {
    const t = await tenant();
    const err = expectError(await dev(t, "POST", calling(t.appId), body), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
    expectError(await dev(t, "GET", calling(t.appId)), 404, "OBJECT_NOT_FOUND");
  });

  it("PATCH refuses a URL the outbound guard refuses, and keeps the stored one", async () => {
    const t = await tenant();
    expect((await dev(t, "POST", calling(t.appId), { name: "D", url: "https://dial.example.com/w" })).status).toBe(200);
    const err = expectError(await dev(t, "PATCH", calling(t.appId), { url: "http://dial.example.com/w" }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain("url");
    expect((await dev(t, "GET", calling(t.appId))).json.url).toBe("https://dial.example.com/w");
  });

  it("refuses another app's id (404) on every operation and writes nothing to it", async () => {
    const [a, b] = [await tenant(), await tenant()];
    const paths = [calling(b.appId), `${calling(b.appId)}/recording`, `${calling(b.appId)}/channel-connection`];
    for (const p of paths) {
      expectError(await dev(a, "POST", p, { name: "D", url: "https://dial.example.com/w", isReady: true, urlToRetrieveAuthedRecording: "https://dial.example.com/r/%s" }), 404, "OBJECT_NOT_FOUND");
      expectError(await dev(a, "GET", p), 404, "OBJECT_NOT_FOUND");
      expectError(await dev(a, "PATCH", p, { url: "https://dial.example.com/x" }), 404, "OBJECT_NOT_FOUND");
      expectError(await dev(b, "GET", p), 404, "OBJECT_NOT_FOUND");
    }
    expectError(await dev(a, "DELETE", calling(b.appId)), 404, "OBJECT_NOT_FOUND");
  });
});

describe("calling recording settings", () => {
  it("POST registers the URL format (200), GET reads it, PATCH changes it; no timestamps in the model", async () => {
    const t = await tenant();
    const p = `${calling(t.appId)}/recording`;
    expectError(await dev(t, "GET", p), 404, "OBJECT_NOT_FOUND");
    const made = await dev(t, "POST", p, { urlToRetrieveAuthedRecording: "https://dial.example.com/rec/%s" });
    expect(made.status, made.text).toBe(200);
    expect(made.json).toEqual({ urlToRetrieveAuthedRecording: "https://dial.example.com/rec/%s" });
    const patched = await dev(t, "PATCH", p, { urlToRetrieveAuthedRecording: "https://dial.example.com/r2/%s" });
    expect(patched.json).toEqual({ urlToRetrieveAuthedRecording: "https://dial.example.com/r2/%s" });
    expect((await dev(t, "GET", p)).json).toEqual(patched.json);
  });

  it("refuses a missing or refused URL with a 400 naming it, nothing stored", async () => {
    const t = await tenant();
    const p = `${calling(t.appId)}/recording`;
    expect(expectError(await dev(t, "POST", p, {}), 400, "VALIDATION_ERROR").message).toContain("urlToRetrieveAuthedRecording");
    expect(expectError(await dev(t, "POST", p, { urlToRetrieveAuthedRecording: "https://127.0.0.2.nip.invalid:99999/x" }), 400, "VALIDATION_ERROR").message).toContain("urlToRetrieveAuthedRecording");
    expectError(await dev(t, "GET", p), 404, "OBJECT_NOT_FOUND");
  });
});

describe("calling channel connection settings", () => {
  it("POST (200), GET, PATCH and DELETE (204), with timestamps", async () => {
    const t = await tenant();
    const p = `${calling(t.appId)}/channel-connection`;
    const made = await dev(t, "POST", p, { url: "https://dial.example.com/channel", isReady: false });
    expect(made.status, made.text).toBe(200);
    expect(made.json).toMatchObject({ url: "https://dial.example.com/channel", isReady: false, createdAt: expect.stringMatching(/^\d{4}-/), updatedAt: expect.stringMatching(/^\d{4}-/) });
    expectError(await dev(t, "POST", p, { url: "https://dial.example.com/channel", isReady: true }), 409, "CONFLICT");
    expect((await dev(t, "PATCH", p, { isReady: true })).json).toMatchObject({ url: "https://dial.example.com/channel", isReady: true });
    expect((await dev(t, "DELETE", p)).status).toBe(204);
    expectError(await dev(t, "GET", p), 404, "OBJECT_NOT_FOUND");
  });

  it.each([
    ["isReady missing", { url: "https://dial.example.com/c" }, "isReady"],
    ["url missing", { isReady: true }, "url"],
    ["url plain http", { url: "http://dial.example.com/c", isReady: true }, "url"],
  ])("refuses %s with a 400 naming the field, nothing stored", async (_name, body, field) => {
    const t = await tenant();
    const p = `${calling(t.appId)}/channel-connection`;
    expect(expectError(await dev(t, "POST", p, body), 400, "VALIDATION_ERROR").message).toContain(field);
    expectError(await dev(t, "GET", p), 404, "OBJECT_NOT_FOUND");
  });
});
