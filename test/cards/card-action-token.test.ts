/**
 * The action token and the query check as pure functions (card-action-token.ts, card-response.ts): what a
 * token binds and what it leaves out, expiry, keys, malformed tokens, and how lenient query parsers would
 * read an action uri's query against the parameters the service appends.
 */
import { describe, expect, it } from "vitest";
import { actionKey, checkActionToken, mintActionToken, type ActionBinding } from "../../src/services/cards/action-token";
import { ACTION_TOKEN_TTL_MS } from "../../src/schemas/cards/view";
import { actionSchema, conflictingQueryParam, type Action } from "../../src/schemas/cards/response";
import { signV3 } from "../../src/lib/signature";

const SECRET = "yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy";
const NOW = 1_700_000_000_000;
const binding: ActionBinding = { appId: 1, cardId: 2, portalId: 3, objectType: "CONTACT", objectId: 4, userId: 5 };
const action = (a: Record<string, unknown>): Action => actionSchema(false).parse(a);
const hook = action({ type: "ACTION_HOOK", httpMethod: "post", uri: "https://int.example.com/actions/resolve?ticket=1", associatedObjectProperties: ["email", "firstname"] });
const frame = action({ type: "IFRAME", uri: "https://int.example.com/actions/edit", width: 300, height: 200 });

describe("action tokens", () => {
  it("verify for exactly the action, binding and key they were minted for, until they expire", async () => {
    const key = await actionKey(SECRET);
    const token = await mintActionToken(key, binding, hook, NOW);
    expect(token).toMatch(new RegExp(`^v1\\.${NOW + ACTION_TOKEN_TTL_MS}\\.[A-Za-z0-9_-]{43}$`));
    expect(await checkActionToken(key, binding, hook, token, NOW)).toBe("valid");
    expect(await checkActionToken(key, binding, hook, token, NOW + ACTION_TOKEN_TTL_MS - 1)).toBe("valid");
    expect(await checkActionToken(key, binding, hook, token, NOW + ACTION_TOKEN_TTL_MS)).toBe("expired");
    expect(await checkActionToken(await actionKey(SECRET), binding, hook, token, NOW)).toBe("valid"); // the key is derived, not random
    expect(await checkActionToken(await actionKey(`${SECRET}x`), binding, hook, token, NOW)).toBe("invalid");
  });

  it.each(Object.keys(binding))("bind the %s", async (field) => {
    const key = await actionKey(SECRET);
    const token = await mintActionToken(key, binding, hook, NOW);
    const value = binding[field as keyof ActionBinding];
    const other = { ...binding, [field]: typeof value === "number" ? value + 1 : "COMPANY" };
    expect(await checkActionToken(key, other, hook, token, NOW)).toBe("invalid");
  });

  it("bind every field that shapes the call, and nothing else", async () => {
    const key = await actionKey(SECRET);
    const hookToken = await mintActionToken(key, binding, hook, NOW);
    const frameToken = await mintActionToken(key, binding, frame, NOW);
    const changed: [string, Action, string][] = [
      ["type", action({ ...hook, type: "CONFIRMATION_ACTION_HOOK" }), hookToken],
      ["httpMethod", action({ ...hook, httpMethod: "PUT" }), hookToken],
      ["uri path", action({ ...hook, uri: "https://int.example.com/actions/delete?ticket=1" }), hookToken],
      ["uri query", action({ ...hook, uri: "https://int.example.com/actions/resolve?ticket=2" }), hookToken],
      ["uri host", action({ ...hook, uri: "https://int2.example.com/actions/resolve?ticket=1" }), hookToken],
      ["property added", action({ ...hook, associatedObjectProperties: ["email", "firstname", "phone"] }), hookToken],
      ["property order", action({ ...hook, associatedObjectProperties: ["firstname", "email"] }), hookToken],
      ["properties joined differently", action({ ...hook, associatedObjectProperties: ["email,firstname"] }), hookToken],
      ["width", action({ ...frame, width: 301 }), frameToken],
      ["height", action({ ...frame, height: 201 }), frameToken],
      ["iframe turned into a hook", action({ ...frame, type: "ACTION_HOOK", httpMethod: "GET" }), frameToken],
    ];
    for (const [what, a, token] of changed) expect(await checkActionToken(key, binding, a, token, NOW), what).toBe("invalid");
    const cosmetic = action({ ...hook, label: "Another label", confirmationMessage: "Other?", confirmButtonText: "Yes", cancelButtonText: "No" });
    expect(await checkActionToken(key, binding, cosmetic, hookToken, NOW)).toBe("valid");
    expect(await checkActionToken(key, binding, action({ ...hook, httpMethod: "POST" }), hookToken, NOW)).toBe("valid"); // normalised
  });

  it("refuse malformed tokens, altered expiries and tokens that claim to come from the future", async () => {
    const key = await actionKey(SECRET);
    const token = await mintActionToken(key, binding, hook, NOW);
    const [, expiresAt, mac] = token.split(".") as [string, string, string];
    for (const bad of ["", "v1", "v1..", `v1.${expiresAt}`, `v1.${expiresAt}.${mac}=`, `v1.${expiresAt}.${mac.slice(1)}`, `v1.${expiresAt}.${mac}A`, `v2.${expiresAt}.${mac}`, `v1.-1.${mac}`, `v1.${expiresAt}.${mac.replace(/.$/, "!")}`, ` ${token}`, `${token}\n`]) {
      expect(await checkActionToken(key, binding, hook, bad, NOW), JSON.stringify(bad)).toBe("invalid");
    }
    expect(await checkActionToken(key, binding, hook, `v1.${Number(expiresAt) + 1}.${mac}`, NOW)).toBe("invalid");
    expect(await checkActionToken(key, binding, hook, `v1.${Number(expiresAt) - 1}.${mac}`, NOW)).toBe("invalid");
    // A genuine token made for a time far ahead (a clock gone wrong): refused as never minted now.
    const future = await mintActionToken(key, binding, hook, NOW + 10 * 60_000);
    expect(await checkActionToken(key, binding, hook, future, NOW)).toBe("invalid");
    expect(await checkActionToken(key, binding, hook, await mintActionToken(key, binding, hook, NOW + 30_000), NOW)).toBe("valid"); // within the leeway
  });

  it("are not the outbound v3 signature: the key is derived from the client secret with domain separation", async () => {
    const key = await actionKey(SECRET);
    const token = await mintActionToken(key, binding, hook, NOW);
    const mac = token.split(".")[2]!;
    const expiresAt = NOW + ACTION_TOKEN_TTL_MS;
    const canonical = JSON.stringify(["crm-edge card action v1", 1, 2, 3, "CONTACT", 4, 5, expiresAt, "ACTION_HOOK", "POST", hook.uri, ["email", "firstname"], null, null]);
    // HMAC keyed with the secret itself (the v3 signing key) over the same string: a different value, refused.
    const raw = (await signV3(SECRET, "", "", canonical, "")).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect(raw).not.toBe(mac);
    expect(await checkActionToken(key, binding, hook, `v1.${expiresAt}.${raw}`, NOW)).toBe("invalid");
    expect(await checkActionToken(key, binding, hook, `v1.${expiresAt}.${mac}`, NOW)).toBe("valid"); // the same string, derived key
  });
});

describe("query parameters that contradict what the service appends (defence in depth)", () => {
  const appended: [string, string][] = [
    ["userId", "5"],
    ["userEmail", "a+b@example.com"],
    ["associatedObjectId", "4"],
    ["associatedObjectType", "CONTACT"],
    ["portalId", "3"],
  ];
  const conflict = (query: string) => conflictingQueryParam(`https://x.example/a${query}`, appended);

  it.each([
    ["?portalId=1", "portalId"],
    ["?a=1&portalId=1", "portalId"],
    ["?portalId=3&portalId=1", "portalId"],
    ["?PortalID=1", "PortalID"],
    ["?portal%49d=1", "portalId"],
    ["?portalId[]=1", "portalId[]"],
    ["?portalId[x]=1", "portalId[x]"],
    ["?portalId%5B%5D=1", "portalId[]"],
    ["?x=1;portalId=1", "portalId"],
    ["?portalId", "portalId"],
    ["?portalId=", "portalId"],
    ["?portalId=3%20", "portalId"],
    ["?%=1&userId=2", "userId"],
    ["?userEmail=a+b@example.com", "userEmail"], // form decoding reads "a b@example.com"
    ["?associatedObjectType=DEAL", "associatedObjectType"],
  ])("%s contradicts %s", (query, name) => {
    expect(conflict(query)).toBe(name);
  });

  it.each([
    "",
    "?",
    "?portal=1",
    "?portalIdx=1",
    "?xportalId=1",
    "?a=portalId",
    "?a=1#portalId=2",
    "?user%20Id=1",
    // The values the service sends, repeated: integrators echo what they received. Harmless.
    "?portalId=3",
    "?portalId=3&userId=5&associatedObjectId=4&associatedObjectType=CONTACT",
    "?PORTALID=3",
    "?userEmail=a%2Bb%40example.com",
  ])("%s contradicts nothing", (query) => {
    expect(conflict(query)).toBeUndefined();
  });

  it("only names the service appends count: none at all for an IFRAME without properties", () => {
    expect(conflictingQueryParam("https://x.example/a?portalId=1&userId=2", [])).toBeUndefined();
    expect(conflictingQueryParam("https://x.example/a?firstname=Zo%C3%AB", [["firstname", "Zoë"]])).toBeUndefined();
    expect(conflictingQueryParam("https://x.example/a?firstname=Zoe", [["firstname", "Zoë"]])).toBe("firstname");
    expect(conflictingQueryParam("not a url", [["portalId", "1"]])).toBeUndefined(); // refused by the baseUris rule
  });
});
