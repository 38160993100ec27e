/** Reading v1 contacts: one profile by vid, email or utk, and batches by vid or email. */
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, tenant } from "../helpers/api";
import { signIn } from "../helpers/oauth-flow";
import { profileOf, typeOf, V1, v1Create } from "./helpers";

describe("GET /contacts/v1/contact/{vid|email|utk}/profile", () => {
  it("answers the full profile by vid, by email (any case) and by a utk tied through /tracking/v1/identify", async () => {
    const t = await tenant();
    const vid = await v1Create(t, { email: "Ada@Example.com", firstname: "Ada", lastname: "Lovelace" });
    await call("POST", "/tracking/v1/identify", { token: t.pat, body: { utk: "utk-ada", email: "ada@example.com" } });
    for (const path of [`${V1}/vid/${vid}/profile`, `${V1}/email/ADA%40example.com/profile`, `${V1}/utk/utk-ada/profile`]) {
      const res = await call("GET", path, { token: t.oauth });
      expect(res.status, path).toBe(200);
      expect(res.json).toMatchObject({ vid, "canonical-vid": vid, "merged-vids": [], "portal-id": t.portalId, "is-contact": true, "form-submissions": [], "list-memberships": [], "merge-audits": [] });
      expect(res.json.properties.firstname.value).toBe("Ada");
      expect(res.json.properties.firstname.versions[0]).toMatchObject({ value: "Ada", "source-type": "API", "source-id": null, selected: false });
      expect(res.json.properties.createdate.value).toMatch(/^\d{13}$/);
      expect(res.json["identity-profiles"][0].identities.map((i: { type: string }) => i.type)).toEqual(["EMAIL", "LEAD_GUID"]);
    }
  });

  it("honours property, propertyMode=value_only and showListMemberships=false", async () => {
    const t = await tenant();
    const vid = await v1Create(t, { email: "p@example.com", firstname: "P", lastname: "Q" });
    const res = await profileOf(t, vid, "?property=firstname&property=email&propertyMode=value_only&showListMemberships=false&formSubmissionMode=none");
    expect(res.json.properties).toEqual({ firstname: { value: "P" }, email: { value: "p@example.com" } });
    expect(res.json).not.toHaveProperty("list-memberships");
  });

  it("an unknown contact is the recorded 404 with X-Service-NotFound, another account's too", async () => {
    const a = await tenant();
    const b = await tenant();
    const vid = await v1Create(a, { email: "mine@example.com" });
    for (const path of [`${V1}/vid/0/profile`, `${V1}/vid/${vid}/profile`, `${V1}/email/mine@example.com/profile`, `${V1}/utk/nope/profile`]) {
      const body = expectError(await call("GET", path, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
      expect(body.message).toBe("contact does not exist");
    }
  });

  it.each([
    ["/vid/abc/profile", "vid"],
    ["/vid/1/profile?propertyMode=all", "propertyMode"],
    ["/vid/1/profile?formSubmissionMode=some", "formSubmissionMode"],
  ])("GET %s → 400 naming %s", async (path, field) => {
    const t = await tenant();
    const body = expectError(await call("GET", `${V1}${path}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(body.message).toContain(field);
  });
});

describe("GET /contacts/v1/contact/vids/batch and /emails/batch", () => {
  it("answers a map keyed by vid, unknown ones left out, values only", async () => {
    const t = await tenant();
    const a = await v1Create(t, { email: "a@example.com", firstname: "A" });
    const b = await v1Create(t, { email: "b@example.com", firstname: "B" });
    const byVid = await call("GET", `${V1}/vids/batch?vid=${a}&vid=${b}&vid=999999999`, { token: t.pat });
    expect(byVid.status).toBe(200);
    expect(Object.keys(byVid.json).sort()).toEqual([String(a), String(b)].sort());
    expect(byVid.json[a].properties.firstname).toEqual({ value: "A" });
    const byEmail = await call("GET", `${V1}/emails/batch?email=b@example.com&email=none@example.com`, { token: t.pat });
    expect(Object.keys(byEmail.json)).toEqual([String(b)]);
    for (const v of Object.values(byEmail.json)) for (const k of ["vid", "canonical-vid", "merged-vids", "identity-profiles"]) expect(v).toHaveProperty(k);
  });

  it.each([
    ["/vids/batch", "vid"],
    ["/vids/batch?vid=x", "vid"],
    [`/vids/batch?${Array.from({ length: 101 }, (_, i) => `vid=${i + 1}`).join("&")}`, "vid"],
    ["/emails/batch", "email"],
  ])("GET %s → 400 naming %s", async (path, field) => {
    const t = await tenant();
    const body = expectError(await call("GET", `${V1}${path}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(body.message).toContain(field);
  });

  it("the profile keeps the recorded keys and JSON types (facts of the recorded profile, in our words)", async () => {
    const t = await tenant();
    const vid = await v1Create(t, { email: "shape@example.com", firstname: "S" });
    const res = await profileOf(t, vid);
    const recordedTypes = {
      vid: "number", "canonical-vid": "number", "merged-vids": "array", "portal-id": "number", "is-contact": "boolean",
      "profile-token": "string", "profile-url": "string", properties: "object", "form-submissions": "array",
      "list-memberships": "array", "identity-profiles": "array", "merge-audits": "array",
    };
    for (const [k, type] of Object.entries(recordedTypes)) expect([k, typeOf(res.json[k])]).toEqual([k, type]);
  });

  it("profile-url opens the contact's record page: sign-in first when signed out, the page once signed in", async () => {
    const t = await tenant();
    const vid = await v1Create(t, { email: "url@example.com", firstname: "Url", lastname: "Owner" });
    const url = (await profileOf(t, vid)).json["profile-url"] as string;
    expect(url).toBe(`${BASE}/app/contacts/${vid}`);
    const path = url.slice(BASE.length);
    const signedOut = await call("GET", path);
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toBe(`/login?next=${encodeURIComponent(path)}`);
    const page = await call("GET", path, { headers: { cookie: await signIn(t) } });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Url Owner");
    // Another account's user gets the 404 page, never the contact.
    const other = await call("GET", path, { headers: { cookie: await signIn(await tenant()) } });
    expect(other.status).toBe(404);
    expect(other.text).not.toContain("Url Owner");
  });
});
