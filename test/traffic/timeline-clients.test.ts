/**
 * What real clients send, and expect back: an event write answers 204 with no body, a property update
 * carries the property id in the body rather than the path, and writes pass `userId` in the query.
 * node-hubspot's timeline requests as captured on the wire (clients_wire/probe_out.json) and its unit-test
 * mocks, replayed against this Worker with ids swapped in (traffic suite only).
 */
import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { typesPath } from "../timeline/helpers";
import { recording, wireRequests, type WireRequest } from "./recordings";

/** Timeline requests node-hubspot put on the wire (clients_wire/probe_out.json). */
const wireTimelineRequests = () => wireRequests().filter((r): r is WireRequest => typeof r.url === "string" && r.url.startsWith("/integrations/v1/"));

describe("node-hubspot's timeline calls", () => {
  it("succeed in the order an integration makes them, with the statuses clients expect", async () => {
    const t = await tenant();
    const ids: Record<string, string> = { "111": String(t.appId) };
    const requests = wireTimelineRequests();
    expect(requests.map((r) => r.label)).toEqual([
      "hubspot.timelines.createEventType(app,user,data)",
      "hubspot.timelines.updateEventType(app,id,data)",
      "hubspot.timelines.createEventTypeProperty(app,id,user,data)",
      "hubspot.timelines.updateEventTypeProperty(app,id,propId,data)",
      "hubspot.timelines.createTimelineEvent(app,id,data)",
    ]);
    const expected = [200, 200, 200, 200, 204];
    for (const [i, req] of requests.entries()) {
      const url = req.url.replace(/\/(111|333)(?=\/|\?|$)/g, (m, id: string) => `/${ids[id] ?? id}`);
      let body = JSON.parse(JSON.stringify(req.body).replace(/\b(111|333|444)\b/g, (id) => ids[id] ?? id));
      const isEvent = url.includes("/timeline/event?") || url.endsWith("/timeline/event");
      if (isEvent) body = { ...body, eventTypeId: Number(ids["333"]) };
      const res = await call(req.method, url, { token: isEvent ? t.oauth : t.developerKey, body });
      expect(res.status, `${req.label}: ${res.text}`).toBe(expected[i]);
      if (res.status === 204) expect(res.text).toBe("");
      if (req.label.startsWith("hubspot.timelines.createEventType(")) ids["333"] = String(res.json.id);
      if (req.label.startsWith("hubspot.timelines.createEventTypeProperty")) ids["444"] = String(res.json.id);
    }
    const types = await call("GET", typesPath(t.appId), { token: t.developerKey });
    expect(types.json).toEqual([expect.objectContaining({ name: "T2", headerTemplate: "h", detailTemplate: "d", applicationId: t.appId })]);
    const props = await call("GET", `${typesPath(t.appId)}/${ids["333"]}/properties`, { token: t.developerKey });
    expect(props.json).toEqual([expect.objectContaining({ name: "p", label: "P2", propertyType: "Numeric" })]);
  });

  it.each(["07", "09"])("mock %s (create with ?userId=) is accepted as sent", async (n) => {
    const t = await tenant();
    const mock = recording(`synthetic-test-mocks/timeline_v1__${n}.json`);
    let path = mock.path.replace("/12345/", `/${t.appId}/`);
    if (n === "09") {
      const type = await call("POST", typesPath(t.appId), { token: t.developerKey, body: { name: "x" } });
      path = path.replace("/123/", `/${type.json.id}/`);
    }
    const body = JSON.parse(JSON.stringify(mock.requestBody).replace("12345", String(t.appId)));
    const res = await call(mock.method, `${path}?userId=${mock.query.userId}`, { token: t.developerKey, body });
    expect(res.status, res.text).toBe(mock.status);
    expect(res.json).toMatchObject(JSON.parse(JSON.stringify(mock.responseBody).replace("12345", String(t.appId))));
  });
});
