/** Writing v1 contacts: create, update, createOrUpdate, the atomic batch, delete. */

import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { profileOf, V1, v1Create, v1Props } from "./helpers";
import { accountD1 } from "../helpers/shards";

const liveContacts = async (portalId: number) =>
  (await (await accountD1(portalId)).prepare("select count(*) as n from crm_objects where portal_id = ? and object_type = 'contacts' and archived = 0").bind(portalId).first<{ n: number }>())!.n;

describe("POST /contacts/v1/contact", () => {
  it("creates a contact the v3 API and the v1 list see, and answers its profile", async () => {
    const t = await tenant();
    const res = await call("POST", V1, { token: t.pat, body: v1Props({ email: "new@example.com", firstname: "New" }) });
    expect(res.status).toBe(200);
    expect(res.json.properties.email.value).toBe("new@example.com");
    const v3 = await call("GET", `/crm/v3/objects/contacts/${res.json.vid}`, { token: t.pat });
    expect(v3.json.properties).toMatchObject({ email: "new@example.com", firstname: "New" });
    const empty = await call("POST", V1, { token: t.pat, body: { properties: [] } });
    expect(empty.status).toBe(200);
  });

  it("an existing email is the recorded 409 CONTACT_EXISTS with identityProfile", async () => {
    const t = await tenant();
    const vid = await v1Create(t, { email: "dup@example.com" });
    const res = await call("POST", V1, { token: t.pat, body: v1Props({ email: "DUP@example.com" }) });
    const body = expectError(res, 409, "CONFLICT");
    expect(body).toMatchObject({ message: "Contact already exists", error: "CONTACT_EXISTS", identityProfile: { vid, isContact: true, linkedVid: [] } });
    expect(body.identityProfile.identity.map((i: { type: string }) => i.type)).toEqual(["EMAIL", "LEAD_GUID"]);
  });

  it.each([
    [{ properties: [{ property: "email", value: "not_an_email" }] }, "INVALID_EMAIL"],
    [{ properties: "x" }, "properties"],
    [{ properties: [{ property: "bad name", value: "x" }] }, "properties"],
    [{ properties: [{ value: "x" }] }, "property"],
  ])("bad body %j → 400 (%s)", async (body, what) => {
    const t = await tenant();
    const err = expectError(await call("POST", V1, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    if (what === "INVALID_EMAIL") {
      expect(err).toMatchObject({ message: "Property values were not valid", validationResults: [{ isValid: false, error: "INVALID_EMAIL", name: "email", message: "Email address not_an_email is invalid" }] });
    } else expect(err.message).toContain(what);
    expect(await liveContacts(t.portalId)).toBe(0);
  });
});

describe("POST /contacts/v1/contact/{vid|email}/profile", () => {
  it("updates by vid and by email with 204; \"\" clears a property", async () => {
    const t = await tenant();
    const vid = await v1Create(t, { email: "u@example.com", firstname: "Old", lastname: "Gone" });
    const byVid = await call("POST", `${V1}/vid/${vid}/profile`, { token: t.pat, body: v1Props({ firstname: "New", lastname: "" }) });
    expect(byVid.status).toBe(204);
    const byEmail = await call("POST", `${V1}/email/u@example.com/profile`, { token: t.pat, body: v1Props({ company: "Acme" }) });
    expect(byEmail.status).toBe(204);
    const p = (await profileOf(t, vid)).json.properties;
    expect([p.firstname.value, p.lastname, p.company.value]).toEqual(["New", undefined, "Acme"]);
  });

  it("an unknown contact is a 404; an invalid email a 400; another contact's email the 409", async () => {
    const t = await tenant();
    const vid = await v1Create(t, { email: "one@example.com" });
    await v1Create(t, { email: "two@example.com" });
    expectError(await call("POST", `${V1}/vid/0/profile`, { token: t.pat, body: v1Props({ firstname: "x" }) }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("POST", `${V1}/email/none@example.com/profile`, { token: t.pat, body: v1Props({ firstname: "x" }) }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("POST", `${V1}/vid/${vid}/profile`, { token: t.pat, body: v1Props({ email: "nope" }) }), 400, "VALIDATION_ERROR");
    const body = expectError(await call("POST", `${V1}/vid/${vid}/profile`, { token: t.pat, body: v1Props({ email: "two@example.com" }) }), 409, "CONFLICT");
    expect(body.error).toBe("CONTACT_EXISTS");
  });
});

describe("POST /contacts/v1/contact/createOrUpdate/email/{email}", () => {
  it("creates (isNew true) then updates (isNew false) the same contact", async () => {
    const t = await tenant();
    const first = await call("POST", `${V1}/createOrUpdate/email/cu@example.com`, { token: t.pat, body: v1Props({ firstname: "Hugh" }) });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ vid: expect.any(Number), isNew: true });
    const second = await call("POST", `${V1}/createOrUpdate/email/CU@example.com`, { token: t.pat, body: v1Props({ lastname: "Jackman, Jr." }) });
    expect(second.json).toEqual({ vid: first.json.vid, isNew: false });
    const p = (await profileOf(t, first.json.vid)).json.properties;
    expect([p.email.value, p.firstname.value, p.lastname.value]).toEqual(["cu@example.com", "Hugh", "Jackman, Jr."]);
  });

  it("an invalid email is the recorded 400 INVALID_EMAIL", async () => {
    const t = await tenant();
    const body = expectError(await call("POST", `${V1}/createOrUpdate/email/not_an_email`, { token: t.pat, body: { properties: [] } }), 400, "VALIDATION_ERROR");
    expect(body.validationResults).toEqual([{ isValid: false, message: "Email address not_an_email is invalid", error: "INVALID_EMAIL", name: "email" }]);
  });
});

describe("POST /contacts/v1/contact/batch", () => {
  it("creates and updates contacts keyed by vid or email → 202", async () => {
    const t = await tenant();
    const vid = await v1Create(t, { email: "morpheus@example.com" });
    const res = await call("POST", `${V1}/batch`, {
      token: t.pat,
      body: [
        { vid, ...v1Props({ email: "morpheus@example.com", firstname: "Neo" }) },
        { email: "smith@example.com", ...v1Props({ email: "smith@example.com", firstname: "Smith" }) },
        { email: "smith@example.com", ...v1Props({ lastname: "Agent" }) },
      ],
    });
    expect(res.status, res.text).toBe(202);
    expect(res.text).toBe("");
    expect((await profileOf(t, vid)).json.properties.firstname.value).toBe("Neo");
    const smith = await call("GET", `${V1}/email/smith@example.com/profile`, { token: t.pat });
    expect([smith.json.properties.firstname.value, smith.json.properties.lastname.value]).toEqual(["Smith", "Agent"]);
    expect(await liveContacts(t.portalId)).toBe(2);
  });

  it("1,000 contacts in one request: all created, then all updated", async () => {
    const t = await tenant();
    const body = Array.from({ length: 1000 }, (_, i) => ({ email: `bulk${i}@example.com`, ...v1Props({ firstname: `F${i}`, phone: `555-01${i}` }) }));
    const res = await call("POST", `${V1}/batch`, { token: t.pat, body });
    expect(res.status, res.text).toBe(202);
    expect(await liveContacts(t.portalId)).toBe(1000);
    // The same thousand again are all updates.
    const again = await call("POST", `${V1}/batch`, { token: t.pat, body: body.map((e) => ({ ...e, ...v1Props({ lastname: "L" }) })) });
    expect(again.status).toBe(202);
    expect(await liveContacts(t.portalId)).toBe(1000);
    const one = await call("GET", `${V1}/email/bulk999@example.com/profile`, { token: t.pat });
    expect(one.json.properties.lastname.value).toBe("L");
  });

  it.each([
    [[{ vid: 999999999, properties: [] }], "vid 999999999"],
    [[{ email: "ok@example.com", properties: [] }, { email: "bad", properties: [] }], "INVALID_EMAIL"],
    [[{ email: "ok@example.com", properties: [] }, { properties: [] }], "vid or an email"],
    [[{ email: "ok@example.com", properties: [{ property: "email", value: "broken" }] }], "INVALID_EMAIL"],
    [{ email: "x@example.com" }, "array"],
    [Array.from({ length: 1001 }, (_, i) => ({ email: `x${i}@example.com`, properties: [] })), "1000"],
  ])("a bad contact is a 400 naming it and nothing is written (%#)", async (body, what) => {
    const t = await tenant();
    const res = await call("POST", `${V1}/batch`, { token: t.pat, body });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    if (what === "INVALID_EMAIL") expect(err.validationResults[0].error).toBe("INVALID_EMAIL");
    else expect(err.message).toContain(what);
    expect(await liveContacts(t.portalId)).toBe(0);
  });

  it("two contacts of a batch taking one email: 409, nothing written", async () => {
    const t = await tenant();
    const a = await v1Create(t, { email: "a@example.com", firstname: "A" });
    const res = await call("POST", `${V1}/batch`, {
      token: t.pat,
      body: [{ email: "fresh@example.com", properties: [] }, { vid: a, ...v1Props({ email: "fresh@example.com" }) }],
    });
    expectError(res, 409, "CONFLICT");
    expect(await liveContacts(t.portalId)).toBe(1);
    expect((await profileOf(t, a)).json.properties.email.value).toBe("a@example.com");
  });
});

describe("DELETE /contacts/v1/contact/vid/{vid}", () => {
  it("archives the contact → 200 {vid, deleted, reason}; then 404", async () => {
    const t = await tenant();
    const vid = await v1Create(t, { email: "del@example.com" });
    const res = await call("DELETE", `${V1}/vid/${vid}`, { token: t.pat });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ vid, deleted: true, reason: "OK" });
    expectError(await profileOf(t, vid), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${V1}/vid/${vid}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${V1}/vid/invalid`, { token: t.pat }), 400, "VALIDATION_ERROR");
    // The email is free again.
    expect((await call("POST", V1, { token: t.pat, body: v1Props({ email: "del@example.com" }) })).status).toBe(200);
  });
});
