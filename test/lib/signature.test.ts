import { describe, expect, it } from "vitest";
import { signableQuery, signatureHeaders, signV2, signV3, verifySignature } from "../../src/lib/signature";

// Known-answer signature vectors (the v2 webhook ones are the real service's documented examples), all with this client secret.
const SECRET = "yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy";

describe("signatures (docs/how-to/verify-signatures.md), against known vectors", () => {
  it.each([
    ["GET", "https://www.example.com/webhook_uri", "", "eee2dddcc73c94d699f5e395f4b9d454a069a6855fbfa152e91e88823087200e"],
    ["POST", "https://www.example.com/webhook_uri", '{"example_field":"example_value"}', "9569219f8ba981ffa6f6f16aa0f48637d35d728c7e4d93d0d52efaa512af7900"],
    [
      "GET",
      "https://www.example.com/demo-fetch?userId=12345&userEmail=loggedinuser@hubspot.com&associatedObjectId=53701&associatedObjectType=CONTACT&portalId=987654",
      "",
      "acc003f1219924a907e25c865ebd8a335c44a817906ceea11ab2a1c47fb12a37",
    ],
  ])("v2 %s %s", async (method, uri, body, expected) => {
    expect(await signV2(SECRET, method, uri, body)).toBe(expected);
  });

  it("v3 matches the known-answer vector", async () => {
    expect(await signV3(SECRET, "POST", "https://www.example.com/webhook_uri", '{"example_field":"example_value"}', 1700000000000)).toBe(
      "rQEKkaNUiu+1qGF//O/pw4BCzstSqO1PyUnGICmf+7o=",
    );
  });

  it("builds the documented data-fetch query string with @ left unescaped", () => {
    const q = signableQuery([
      ["userId", "12345"],
      ["userEmail", "loggedinuser@hubspot.com"],
      ["firstname", "Tim & Co"],
    ]);
    expect(q).toBe("userId=12345&userEmail=loggedinuser@hubspot.com&firstname=Tim%20%26%20Co");
  });

  it("verifies v3 within 5 minutes and refuses stale, tampered or unsigned requests", async () => {
    const now = 1_700_000_000_000;
    const uri = "https://int.example.com/fetch?userEmail=a@b.co";
    const headers = await signatureHeaders(SECRET, "GET", uri, "", now);
    expect(await verifySignature({ secret: SECRET, method: "GET", uri, headers, now: now + 1000 })).toEqual({ ok: true, version: "v3" });
    expect(await verifySignature({ secret: SECRET, method: "GET", uri, headers, now: now + 300_001 })).toMatchObject({ ok: false });
    expect(await verifySignature({ secret: SECRET, method: "GET", uri, headers, now: now - 300_001 })).toMatchObject({ ok: false }); // from the future
    expect(await verifySignature({ secret: SECRET, method: "GET", uri: uri + "x", headers, now })).toMatchObject({ ok: false });
    expect(await verifySignature({ secret: "other", method: "GET", uri, headers, now })).toMatchObject({ ok: false });
    expect(await verifySignature({ secret: SECRET, method: "GET", uri, headers: {} })).toMatchObject({ ok: false, reason: "no v3 signature header" });
    expect(await verifySignature({ secret: SECRET, method: "GET", uri, headers: {}, allowV2: true })).toMatchObject({ ok: false, reason: "no signature header" });
  });

  it("requires v3 by default: a captured request with its v3 headers stripped is refused, at any time", async () => {
    const now = 1_700_000_000_000;
    const uri = "https://int.example.com/actions/delete?portalId=1";
    const headers = await signatureHeaders(SECRET, "DELETE", uri, "", now);
    const stripped = { "x-service-signature": headers["x-service-signature"], "x-service-signature-version": "v2" };
    for (const later of [now, now + 300_001, now + 30 * 86_400_000]) {
      expect(await verifySignature({ secret: SECRET, method: "DELETE", uri, headers: stripped, now: later })).toEqual({ ok: false, reason: "no v3 signature header" });
    }
    // Stripping only the timestamp does not help either: the v3 signature is still there, checked and refused.
    const noTimestamp = { ...stripped, "x-service-signature-v3": headers["x-service-signature-v3"] };
    expect(await verifySignature({ secret: SECRET, method: "DELETE", uri, headers: noTimestamp, now })).toMatchObject({ ok: false, reason: "timestamp outside the 5-minute window" });
  });

  it("accepts v2 alone only with allowV2, and never falls back to v2 when a v3 signature is present but wrong", async () => {
    const now = 1_700_000_000_000;
    const uri = "https://int.example.com/fetch?userEmail=a@b.co";
    const headers = await signatureHeaders(SECRET, "GET", uri, "", now);
    const v2only = { "x-service-signature": headers["x-service-signature"] };
    expect(await verifySignature({ secret: SECRET, method: "GET", uri, headers: v2only, allowV2: true })).toEqual({ ok: true, version: "v2" });
    expect(await verifySignature({ secret: "other", method: "GET", uri, headers: v2only, allowV2: true })).toEqual({ ok: false, reason: "v2 signature mismatch" });
    const badV3 = { ...headers, "x-service-signature-v3": "AAAA" };
    expect(await verifySignature({ secret: SECRET, method: "GET", uri, headers: badV3, now, allowV2: true })).toEqual({ ok: false, reason: "v3 signature mismatch" });
    const staleV3 = await verifySignature({ secret: SECRET, method: "GET", uri, headers, now: now + 300_001, allowV2: true });
    expect(staleV3).toEqual({ ok: false, reason: "timestamp outside the 5-minute window" });
  });
});

describe("signatureHeaders on a URI the URL serialiser re-encodes", () => {
  it("signs v2 over the exact URI and v3 over its decoded form, so both verify", async () => {
    const uri = new URL("https://int.example.com/fetch?lastname=O'Brien&userEmail=a@b.co").toString(); // ' becomes %27
    expect(uri).toContain("O%27Brien");
    const now = 1_700_000_000_000;
    const headers = await signatureHeaders(SECRET, "GET", uri, "", now);
    expect(await verifySignature({ secret: SECRET, method: "GET", uri, headers, now })).toEqual({ ok: true, version: "v3" });
    const v2only = { "x-service-signature": headers["x-service-signature"] };
    expect(await verifySignature({ secret: SECRET, method: "GET", uri, headers: v2only, allowV2: true })).toEqual({ ok: true, version: "v2" });
  });
});
