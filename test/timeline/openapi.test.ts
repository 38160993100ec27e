/**
 * The timeline routes' schemas produce an OpenAPI document. Routes without path or query schemas get empty
 * ones here because the foundation's buildDocument passes `undefined` to zod-openapi, which throws (reported
 * to the lead); this test checks the timeline's own schemas.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildDocument } from "../../src/routes/docs/openapi";
import { timelineRoutes } from "../../src/routes/timeline/events";

describe("OpenAPI", () => {
  it("documents every timeline endpoint from its schemas", () => {
    const doc = buildDocument(timelineRoutes.map((r) => ({ ...r, params: r.params ?? z.object({}), query: r.query ?? z.object({}) })));
    const paths = doc.paths ?? {};
    expect(Object.keys(paths).sort()).toEqual([
      "/crm/v3/objects/{objectType}/{objectId}/timeline",
      "/integrations/v1/{appId}/timeline/event",
      "/integrations/v1/{appId}/timeline/event-types",
      "/integrations/v1/{appId}/timeline/event-types/{eventTypeId}",
      "/integrations/v1/{appId}/timeline/event-types/{eventTypeId}/properties",
      "/integrations/v1/{appId}/timeline/event-types/{eventTypeId}/properties/{propertyId}",
      "/integrations/v1/{appId}/timeline/event/batch",
      "/integrations/v1/{appId}/timeline/event/{eventTypeId}/{eventId}",
      "/tracking/v1/identify",
    ]);
    const event = paths["/integrations/v1/{appId}/timeline/event"];
    expect(Object.keys(event ?? {}).sort()).toEqual(["post", "put"]);
    expect(event?.put?.security).toEqual([{ bearer: [] }]);
    expect(paths["/integrations/v1/{appId}/timeline/event-types"]?.post?.security).toEqual([{ developerKey: [] }, { bearer: [] }]);
  });
});
