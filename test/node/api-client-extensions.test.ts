/**
 * App extension settings with the unmodified @hubspot/api-client 14.0.1: `crm.extensions.calling` (settings,
 * recording settings, channel connection) and `crm.extensions.videoconferencing` with the app's developer key
 * (sent as ?hapikey=) against the running Worker; the client parses every answer into its models.
 */
import { Client } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { rejection, tenant, workerUrl } from "./helpers";

describe("@hubspot/api-client 14.0.1: extension settings", () => {
  it("creates, reads, changes and deletes the calling settings, recording settings and channel connection", async () => {
    const t = await tenant();
    const calling = new Client({ developerApiKey: t.developerKey, basePath: workerUrl() }).crm.extensions.calling;

    const made = await calling.settingsApi.create(t.appId, { name: "SDK dialer", url: "https://dial.example.com/widget", height: 500 });
    expect(made).toMatchObject({ name: "SDK dialer", url: "https://dial.example.com/widget", height: 500, width: 400, isReady: true });
    expect(made.createdAt).toBeInstanceOf(Date);
    expect((await calling.settingsApi.update(t.appId, { isReady: false })).isReady).toBe(false);
    expect((await calling.settingsApi.getById(t.appId)).isReady).toBe(false);
    expect((await rejection<{ code: number }>(calling.settingsApi.create(t.appId, { name: "again", url: "https://dial.example.com/w" }))).code).toBe(409);
    await calling.settingsApi.archive(t.appId);
    expect((await rejection<{ code: number }>(calling.settingsApi.getById(t.appId))).code).toBe(404);

    const rec = await calling.recordingSettingsApi.registerUrlFormat(t.appId, { urlToRetrieveAuthedRecording: "https://dial.example.com/rec/%s" });
    expect(rec.urlToRetrieveAuthedRecording).toBe("https://dial.example.com/rec/%s");
    await calling.recordingSettingsApi.updateUrlFormat(t.appId, { urlToRetrieveAuthedRecording: "https://dial.example.com/r2/%s" });
    expect((await calling.recordingSettingsApi.getUrlFormat(t.appId)).urlToRetrieveAuthedRecording).toBe("https://dial.example.com/r2/%s");

    const channel = await calling.channelConnectionSettingsApi.create(t.appId, { url: "https://dial.example.com/channel", isReady: false });
    expect(channel).toMatchObject({ url: "https://dial.example.com/channel", isReady: false });
    expect(channel.updatedAt).toBeInstanceOf(Date);
    expect((await calling.channelConnectionSettingsApi.update(t.appId, { isReady: true })).isReady).toBe(true);
    expect((await calling.channelConnectionSettingsApi.getById(t.appId)).isReady).toBe(true);
    await calling.channelConnectionSettingsApi.archive(t.appId);
    expect((await rejection<{ code: number }>(calling.channelConnectionSettingsApi.getById(t.appId))).code).toBe(404);
  });

  it("replaces, reads and deletes the video conferencing settings; a bad URL is a 400 naming it; another app's id a 404", async () => {
    const [t, other] = [await tenant(), await tenant()];
    const video = new Client({ developerApiKey: t.developerKey, basePath: workerUrl() }).crm.extensions.videoconferencing.settingsApi;
    expect((await rejection<{ code: number }>(video.getById(t.appId))).code).toBe(404);
    const settings = { createMeetingUrl: "https://meet.example.com/create", userVerifyUrl: "https://meet.example.com/verify" };
    expect(await video.replace(t.appId, settings)).toEqual(settings);
    expect(await video.getById(t.appId)).toEqual(settings);
    const bad = await rejection<{ code: number; body: unknown }>(video.replace(t.appId, { createMeetingUrl: "http://meet.example.com/create" }));
    expect(bad.code).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("createMeetingUrl");
    expect((await rejection<{ code: number }>(video.replace(other.appId, settings))).code).toBe(404);
    await video.archive(t.appId);
    expect((await rejection<{ code: number }>(video.getById(t.appId))).code).toBe(404);
  });
});
