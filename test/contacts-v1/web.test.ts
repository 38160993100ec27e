/** The web app's contact pages show a merged contact correctly. */
import { describe, expect, it } from "vitest";
import { BASE, send, tenant } from "../helpers/api";
import { page, signIn } from "../web/helpers";
import { V1, v1Create } from "./helpers";

describe("contact pages after a merge", () => {
  it("the survivor's page lists the merged vids; the merged-away vid's page sends to the survivor", async () => {
    const t = await tenant();
    const primary = await v1Create(t, { email: "keep@example.com", firstname: "Keep" });
    const secondary = await v1Create(t, { email: "gone@example.com", firstname: "Gone" });
    const merged = await send(
      new Request(`${BASE}${V1}/merge-vids/${primary}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" },
        body: JSON.stringify({ vidToMerge: secondary }),
      }),
    );
    expect(merged.status).toBe(200);
    const b = await signIn(t);
    const survivor = await page(b, `/app/contacts/${primary}`);
    expect(survivor.status).toBe(200);
    expect(survivor.text).toContain(`Merged from contact #${secondary}`);
    const away = await page(b, `/app/contacts/${secondary}`);
    expect([away.status, away.headers.get("location")]).toEqual([302, `/app/contacts/${primary}`]);
    // The list shows the survivor only.
    const list = await page(b, "/app/contacts");
    expect(list.text).toContain(`/app/contacts/${primary}"`);
    expect(list.text).not.toContain(`/app/contacts/${secondary}"`);
    // Another account's user gets the plain 404 for either id, never the redirect.
    const intruder = await signIn(await tenant());
    for (const id of [primary, secondary]) expect((await page(intruder, `/app/contacts/${id}`)).status).toBe(404);
  });
});
