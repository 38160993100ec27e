/**
 * The timeline documentation's request examples and node-hubspot's update mock, sent as recorded (traffic
 * suite only: the main suite has no recordings and sends bodies of the same form in its own words).
 */
import { describe, expect, it } from "vitest";
import { tenant } from "../helpers/api";
import { createProp, createType, dev, typesPath } from "../timeline/helpers";
import { recording } from "./recordings";

const propsPath = (appId: number, typeId: number) => `${typesPath(appId)}/${typeId}/properties`;

describe("timeline: the documentation's examples", () => {
  it("accepts the documentation's event type request (applicationId as a string, templates)", async () => {
    const t = await tenant();
    const example = recording("hubspot-docs-examples/timeline_v1__post_event_type.json").requestBody as Record<string, unknown>;
    const res = await dev(t, "POST", typesPath(t.appId), { ...example, applicationId: String(t.appId) });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ headerTemplate: example.headerTemplate, detailTemplate: example.detailTemplate, applicationId: t.appId });
  });

  it("accepts each of the documentation's event type property examples", async () => {
    const t = await tenant();
    const type = await createType(t);
    const examples = recording("hubspot-docs-examples/timeline_v1__post_event_type_property__request_examples.json").requestBody as Record<string, unknown>[];
    for (const body of examples) {
      const res = await dev(t, "POST", propsPath(t.appId, type.id), body);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ name: body.name, label: body.label, propertyType: body.propertyType, options: body.options ?? [] });
    }
  });

  it("accepts node-hubspot's recorded property update (mock timeline_v1__10)", async () => {
    const t = await tenant();
    const type = await createType(t);
    const p = await createProp(t, type.id, { name: "NumericProperty", label: "Numeric Property", propertyType: "Numeric" });
    const mock = recording("synthetic-test-mocks/timeline_v1__10.json");
    const res = await dev(t, "PUT", propsPath(t.appId, type.id), { ...(mock.requestBody as object), id: p.id });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: p.id, name: "NumericProperty", label: "A new label", propertyType: "Numeric" });
  });
});
