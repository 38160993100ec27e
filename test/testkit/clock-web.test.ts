/**
 * A test account's clock in the web app (docs/reference/testkit.md "Clock"): a signed-in user's requests run by
 * the account's time, read with the session in its own statement, as an API call's with its credential. A card
 * action, the app's one write, is offered and checked by that time, on either face; what the integrator checks
 * against its own clock (the signature's timestamp) and the session's expiry stay real time; a STANDARD
 * account's session reads nothing more.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildRouter } from "../../src/router";
import { ADMIN, BASE, call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { received, script } from "../helpers/integrator";
import { createRecord, defineCard, offered } from "../cards/helpers";
import { page, postAction, signIn, type Browser } from "../web/helpers";
import { recordingD1 } from "./helpers";

const DAY_S = 86_400;
const HOUR_MS = 3_600_000;
const near = (ms: number, target: number) => expect(Math.abs(ms - target), `${new Date(ms).toISOString()} vs ${new Date(target).toISOString()}`).toBeLessThan(60_000);
const cardUrl = (id: number, cardId: number) => `/app/api/cards/contacts/${id}/${cardId}`;
/** The expiry an action token carries: `v1.<expiresAt ms>.<mac>`. */
const expiryOf = (token: unknown) => Number(String(token).split(".")[1]);

async function advance(t: Tenant, seconds: number) {
  const res = await call("POST", `/admin/v1/accounts/${t.portalId}/clock`, { token: ADMIN, body: { advanceSeconds: seconds } });
  expect(res.status, res.text).toBe(200);
}

/** A test account with a contact card whose integrator offers an action hook, a contact, and a signed-in browser. */
async function setup() {
  const t = await tenant({ accountType: "DEVELOPER_TEST" });
  const card = await defineCard(t, { title: "Orders" });
  const id = await createRecord(t, "contacts", { email: `${unique()}@example.com` });
  const base = card.body.baseUris[0]!;
  const hook = `${new URL(base).pathname}/refund`;
  await script(hook, { body: JSON.stringify({ message: "Refunded" }) });
  const action = { type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/refund`, label: "Refund" };
  return { t, card, id, hook, action, b: await signIn(t) };
}

/** The action as the web app's card endpoint offers it (with its token). */
async function shownOnWeb(b: Browser, card: { id: number; fetchPath: string }, id: number, action: Record<string, unknown>) {
  await script(card.fetchPath, { body: JSON.stringify({ results: [], secondaryActions: [action] }) });
  const res = await page(b, cardUrl(id, card.id));
  expect(res.json.status, res.text).toBe("OK");
  return res.json.secondaryActions[0] as Record<string, unknown>;
}

describe("the web app runs by the account's clock", () => {
  it("a card action is offered and run by the account's time, signed in real time; the token expires when the clock passes its hour", async () => {
    const { t, card, id, hook, action, b } = await setup();
    await advance(t, DAY_S);
    const shown = await shownOnWeb(b, card, id, action);
    near(expiryOf(shown.actionToken), Date.now() + DAY_S * 1000 + HOUR_MS);
    const res = await postAction(b, `${cardUrl(id, card.id)}/actions`, { action: shown });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ ok: true, integratorStatus: 200, message: "Refunded" });
    // The integrator checks the v3 timestamp against its own clock: real time, a day behind the account's.
    const [req] = await received(hook);
    near(Number(req!.headers["x-service-request-timestamp"]), Date.now());

    // An hour on by the account's clock (in real time a moment later), the offered action has expired.
    await advance(t, 3600 + 60);
    expectError(await postAction(b, `${cardUrl(id, card.id)}/actions`, { action: shown }), 400, "VALIDATION_ERROR");
    const again = await postAction(b, `${cardUrl(id, card.id)}/actions`, { action: shown });
    expect(again.json.errors[0].code).toBe("ACTION_TOKEN_EXPIRED");
    expect(await received(hook)).toHaveLength(1);
  });

  it("an action the API's card view offered on a moved clock runs from the web app, and one the web app offered runs through the API", async () => {
    const { t, card, id, hook, action, b } = await setup();
    await advance(t, 2 * DAY_S);
    // The OAuth token expired with the move: the private app token views the card.
    const [fromApi] = await offered(t, card, id, [action], { token: t.pat });
    const run = await postAction(b, `${cardUrl(id, card.id)}/actions`, { action: fromApi });
    expect(run.status, run.text).toBe(200);
    const fromWeb = await shownOnWeb(b, card, id, action);
    const viaApi = await call("POST", `/crm/v3/objects/contacts/${id}/cards/${card.id}/actions`, { token: t.pat, body: { userId: t.userId, action: fromWeb } });
    expect(viaApi.status, viaApi.text).toBe(200);
    expect(await received(hook)).toHaveLength(2);
  });

  it("the session's expiry is real time: a session keeps working after the clock moved past its 8 hours", async () => {
    const { t, b } = await setup();
    await advance(t, 2 * DAY_S);
    expect((await page(b, "/app")).status).toBe(200);
  });
});

describe("a STANDARD account's session pays nothing for the clock", () => {
  /** Every control-plane statement of one web app page request. */
  async function statements(b: Browser) {
    const { db, seen } = recordingD1(env.DB);
    const res = await buildRouter().fetch(new Request(`${BASE}/app`, { headers: { cookie: b.cookie } }), { ...env, DB: db }, createExecutionContext());
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    return seen;
  }

  it("the same statements with or without a clock row left from when it was a test account; the clock is read only in the session's statement", async () => {
    const plain = await tenant();
    const former = await tenant({ accountType: "DEVELOPER_TEST" });
    await advance(former, 10 * DAY_S);
    expect((await call("PATCH", `/admin/v1/accounts/${former.portalId}`, { token: ADMIN, body: { accountType: "STANDARD" } })).status).toBe(200);
    const a = await statements(await signIn(plain));
    const b = await statements(await signIn(former));
    expect(b.length).toBe(a.length);
    const clocks = a.filter((s) => s.includes("account_quirks"));
    expect(clocks).toHaveLength(1);
    expect(clocks[0]).toMatch(/from "?sessions"?/);
  });
});
