import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { script } from "../helpers/integrator";
import { createRecord, defineCard, viewPath } from "../cards/helpers";

import { recording } from "./recordings";

/** Recorded integrator payloads (shared/reference/traffic/crm-cards/, read in place by ./recordings). */
const recorded = (name: string) => recording<{ responseBody?: unknown; responseBody_partial?: unknown }>(`crm-cards/${name}.json`);

/**
 * The samples carry placeholders for values their code computes (`<associatedObjectId>`, `<DOMAIN>`...).
 * They are filled in the way the integrator would: the ids its data fetch received (portal, user, record),
 * the record type's action base, a number.
 */
function fill(value: unknown, ctx: { recordId: number; base: string; portalId: number; userId: number }, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => fill(v, ctx));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, ctx, k)]));
  if (typeof value !== "string") return value;
  if (key === "objectId" && value.startsWith("<")) return String(ctx.recordId); // these samples echo associatedObjectId
  return value
    .replace("<DOMAIN>", ctx.base)
    .replace("<truncated in excerpt>", `${ctx.base}/iframe`)
    .replaceAll("<portalId>", String(ctx.portalId))
    .replaceAll("<userId>", String(ctx.userId))
    .replace(/<(dealId|associatedObjectId|hs_object_id)>/g, String(ctx.recordId))
    .replace(/<[^>]+>/g, "42");
}

interface Sample {
  file: string;
  recordType: "contacts" | "deals";
  /** Extra base URIs the sample's absolute action URLs live under. */
  bases?: string[];
  propertyDefinitions?: { name: string; label: string; dataType: string; options?: unknown[] }[];
  /** Action URIs the card keeps, per place. */
  kept: { items: number[]; primary?: boolean; secondary?: number };
  warnings?: number;
}

const def = (name: string, dataType = "STRING") => ({ name, label: name, dataType });

const samples: Sample[] = [
  { file: "datafetch_v1__cjavier_Hubspot-CRM-card-JSON", recordType: "contacts", kept: { items: [0] } },
  {
    file: "datafetch_v1__jackcoldrick90_gist_partial",
    recordType: "contacts",
    propertyDefinitions: [
      def("stringExample"),
      { name: "statusExample", label: "Status", dataType: "STATUS", options: [{ type: "SUCCESS", label: "Success", name: "Success" }] },
      def("numberExample", "NUMERIC"),
      def("linkExample", "LINK"),
      def("emailExample", "EMAIL"),
      def("dateExample", "DATE"),
      def("dateTimeExample", "DATETIME"),
      def("currencyExample", "CURRENCY"),
    ],
    // Its one action has no label (the excerpt is cut there), so it cannot be shown and is dropped.
    kept: { items: [0] },
    warnings: 1,
  },
  { file: "datafetch_v1__lionelbui1992_HUBSPOTANDGOOGLEDRIVE", recordType: "contacts", bases: ["https://yourdomain.com/edit-contact"], kept: { items: [0], primary: true } },
  {
    file: "datafetch_v1__netlify_function_docs_style",
    recordType: "deals",
    bases: ["https://hopeful-golick-30e6f5.netlify.com/.netlify/functions"],
    propertyDefinitions: [def("created", "DATE"), def("priority"), def("project"), def("reported_by", "EMAIL"), def("description"), def("reporter_type"), def("status"), def("ticket_type"), def("updated", "DATE")],
    kept: { items: [1] },
  },
  {
    file: "datafetch_v1__nextjs_line_items_card",
    recordType: "deals",
    propertyDefinitions: [def("unitPrice", "NUMERIC"), def("quantity", "NUMERIC"), def("discount"), def("amount", "NUMERIC")],
    kept: { items: [2], secondary: 1 },
  },
  { file: "datafetch_v1__toolsevergrowth_hubspot-crm-card", recordType: "contacts", bases: ["https://hubspot-crm-card-three.vercel.app/api"], kept: { items: [0], primary: true } },
];

type Out = { status: string; error?: string; warnings?: string[]; results: Record<string, unknown>[]; primaryAction?: unknown; secondaryActions?: unknown[] };

describe("recorded integrator payloads served by the local integrator are accepted", () => {
  it.each(samples)("$file", async (sample) => {
    const t = await tenant();
    const recordId = await createRecord(t, sample.recordType, sample.recordType === "deals" ? { dealname: "Big deal" } : { email: "tim@example.com" });
    const card = await defineCard(t, {
      associatedHubSpotObjectTypes: [sample.recordType === "deals" ? "DEAL" : "CONTACT"],
      propertyDefinitions: sample.propertyDefinitions ?? [],
    });
    const base = card.body.baseUris[0]!;
    if (sample.bases) {
      const upd = await call("PUT", `/extensions/sales-objects/v1/object-types/${card.id}`, { token: t.developerKey, body: { baseUris: [base, ...sample.bases] } });
      expect(upd.status, upd.text).toBe(200);
    }
    const rec = recorded(sample.file);
    const payload = fill(rec.responseBody ?? rec.responseBody_partial, { recordId, base, portalId: t.portalId, userId: t.userId }) as { results: Record<string, unknown>[] };
    await script(card.fetchPath, { body: JSON.stringify(payload) });

    const res = await call("GET", viewPath(sample.recordType, recordId, t.userId), { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    const out = res.json.cards[0] as Out;
    expect(out.status, out.error).toBe("OK");
    expect(out.warnings?.length ?? 0, JSON.stringify(out.warnings)).toBe(sample.warnings ?? 0);
    expect(out.results).toHaveLength(payload.results.length);
    for (const [i, item] of payload.results.entries()) {
      const shown = out.results[i]!;
      expect(shown.objectId).toBe(Number(item.objectId));
      expect(shown.title).toBe(item.title);
      expect(shown.link).toBe(item.link ?? null);
      if (item.properties) expect(shown.properties).toEqual(item.properties);
      for (const d of sample.propertyDefinitions ?? []) if (item[d.name] !== undefined) expect(shown[d.name]).toEqual(item[d.name]);
      expect((shown.actions as unknown[]).length).toBe(sample.kept.items[i] ?? 0);
    }
    expect(out.primaryAction !== undefined).toBe(sample.kept.primary ?? false);
    expect(out.secondaryActions?.length ?? 0).toBe(sample.kept.secondary ?? 0);

    // Every kept action runs as shown, with the token the view gave it: iframes give their URL, hooks on the
    // local integrator are called (it answers 200 to paths nobody scripted). Hooks on a sample's own host are
    // not run: tests never leave this machine.
    const kept = [...out.results.flatMap((r) => r.actions as Record<string, unknown>[]), ...(out.primaryAction ? [out.primaryAction] : []), ...(out.secondaryActions ?? [])] as Record<string, unknown>[];
    for (const action of kept.filter((a) => a.type === "IFRAME" || String(a.uri).startsWith(base))) {
      const ran = await call("POST", `/crm/v3/objects/${sample.recordType}/${recordId}/cards/${card.id}/actions`, { token: t.oauth, body: { userId: t.userId, action } });
      expect(ran.status, `${String(action.uri)}: ${ran.text}`).toBe(200);
      expect(ran.json.ok, `${String(action.uri)}: ${ran.text}`).toBe(true);
    }
  });

  it("the newer v3 'sections' sample is not this API's format and turns the card ERROR", async () => {
    const t = await tenant();
    const card = await defineCard(t);
    await script(card.fetchPath, { body: JSON.stringify(recorded("datafetch_v3__hubspot_docs_sample_response_partial").responseBody_partial) });
    const id = await createRecord(t, "contacts");
    const [out] = (await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth })).json.cards as Out[];
    expect(out).toMatchObject({ status: "ERROR", results: [] });
    expect(out!.error).toContain("results must be an array");
  });
});
