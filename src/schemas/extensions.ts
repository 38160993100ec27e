/**
 * @module zod schemas of the app extension settings (docs/reference/extensions.md): the calling extension's
 * settings, recording settings and channel connection settings, and the video conferencing extension's settings,
 * shaped as the official client's models (crm.extensions.calling, crm.extensions.videoconferencing).
 */
import { z } from "zod";

const numericId = z.union([z.number(), z.string().regex(/^\d{1,15}$/, "must be a numeric id").transform(Number)]).pipe(z.number().int().positive());
export const appParams = z.object({ appId: numericId });

/** A URL field: a string here; where it may point (the outbound guard) is checked by the service, per environment. */
const url = (name: string) => z.string({ error: `${name} must be a URL string` }).min(1, `${name} is required`).max(2048);
const bool = (name: string) => z.boolean({ error: `${name} must be a boolean` });
/** The calling widget's frame size in pixels. */
const pixels = (name: string) => z.number({ error: `${name} must be an integer` }).int(`${name} must be an integer`).min(1, `${name} must be positive`).max(10_000);

const callingFields = {
  name: z.string({ error: "name must be a string" }).min(1, "name is required").max(500),
  url: url("url"),
  width: pixels("width"),
  height: pixels("height"),
  isReady: bool("isReady"),
  supportsCustomObjects: bool("supportsCustomObjects"),
  supportsInboundCalling: bool("supportsInboundCalling"),
  usesCallingWindow: bool("usesCallingWindow"),
  usesRemote: bool("usesRemote"),
};
const { name, url: callingUrl, ...callingOptional } = callingFields;

/** SettingsRequest: `name` and `url` required. */
export const callingCreate = z.object({ name, url: callingUrl, ...z.object(callingOptional).partial().shape });
/** SettingsPatchRequest: every field optional. */
export const callingPatch = z.object(callingFields).partial();
export const callingResponse = z.object({
  name: z.string(),
  url: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  isReady: z.boolean(),
  supportsCustomObjects: z.boolean(),
  supportsInboundCalling: z.boolean(),
  usesCallingWindow: z.boolean(),
  usesRemote: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** RecordingSettingsRequest / RecordingSettingsPatchRequest. */
export const recordingCreate = z.object({ urlToRetrieveAuthedRecording: url("urlToRetrieveAuthedRecording") });
export const recordingPatch = recordingCreate.partial();
export const recordingResponse = z.object({ urlToRetrieveAuthedRecording: z.string() });

/** ChannelConnectionSettingsRequest: `url` and `isReady` required; the patch takes either. */
export const channelCreate = z.object({ url: url("url"), isReady: bool("isReady") });
export const channelPatch = channelCreate.partial();
export const channelResponse = z.object({ url: z.string(), isReady: z.boolean(), createdAt: z.string(), updatedAt: z.string() });

/** ExternalSettings of the video conferencing extension: `createMeetingUrl` required. */
export const videoSettings = z.object({
  createMeetingUrl: url("createMeetingUrl"),
  updateMeetingUrl: url("updateMeetingUrl").optional(),
  deleteMeetingUrl: url("deleteMeetingUrl").optional(),
  userVerifyUrl: url("userVerifyUrl").optional(),
  fetchAccountsUri: url("fetchAccountsUri").optional(),
});
export const videoResponse = videoSettings.extend({ createMeetingUrl: z.string() });

/** The fields of each document the service will call: they pass the outbound guard. */
export const URL_FIELDS = {
  calling: ["url"],
  "calling-recording": ["urlToRetrieveAuthedRecording"],
  "calling-channel-connection": ["url"],
  videoconferencing: ["createMeetingUrl", "updateMeetingUrl", "deleteMeetingUrl", "userVerifyUrl", "fetchAccountsUri"],
} as const;
