/**
 * With a DNS resolver configured (OUTBOUND_DNS_URL), an outbound host name is judged by every address it
 * resolves to, not only as written: a name pointing at a private, link-local or (without the loopback flag)
 * loopback address is refused before any connection is made, and so is a name that does not resolve or a
 * resolver that fails. The resolver here is a stub on the local integrator; no test connects to any address
 * the names resolve to.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { checkOutboundUrl, checkResolved, dohResolver, guardedFetch } from "../../src/lib/outbound";
import { BASE, tenant } from "../helpers/api";
import { integratorUrl } from "../helpers/integrator";
import { hooks } from "../webhooks/helpers";

const resolver = () => dohResolver(`${integratorUrl()}/__dns-query`);

describe("names judged by where they resolve", () => {
  it("the stub resolver answers A and AAAA records", async () => {
    expect(await resolver()("mixed.rebind.test")).toEqual(["93.184.216.34", "::1"]);
    expect(await resolver()("nowhere.test")).toEqual([]);
  });

  it.each([
    ["https://hooks.private-net.test/in", "resolves to 10.20.30.40"],
    ["https://metadata.rebind.test/latest", "resolves to 169.254.169.254"],
    ["https://mixed.rebind.test/in", "resolves to ::1"],
    ["https://loop.rebind.test/in", "resolves to 127.0.0.1"],
    ["https://7f000001.a9fea9fe.rbndr.us/in", "resolves to 169.254.169.254"],
    ["https://169.254.169.254.xip.name/latest/meta-data", "resolves to 169.254.169.254"],
    ["https://nowhere.test/in", "does not resolve"],
    ["https://broken.resolver.test/in", "the DNS resolver answered 503"],
  ])("%s is refused before any connection (%s)", async (url, why) => {
    await expect(checkResolved(new URL(url), false, resolver())).rejects.toMatchObject({ kind: "blocked", message: expect.stringContaining(why) });
    await expect(guardedFetch({ method: "POST", url, body: "{}" }, { allowLoopback: false, resolver: resolver(), timeoutMs: 2_000, maxBytes: 1_000 })).rejects.toMatchObject({
      kind: "blocked",
    });
  });

  it("admits public answers, loopback answers only with the loopback flag, and leaves IP literals to the written check", async () => {
    await expect(checkResolved(new URL("https://public.example.test/in"), false, resolver())).resolves.toBeUndefined();
    await expect(checkResolved(new URL("https://loop.rebind.test/in"), true, resolver())).resolves.toBeUndefined();
    // No resolver: names are judged as written (the platform's fetch refuses private addresses when deployed),
    // and a rebinding name passes that check.
    expect(() => checkOutboundUrl("https://7f000001.a9fea9fe.rbndr.us/in", false)).not.toThrow();
    await expect(checkResolved(new URL("https://hooks.private-net.test/in"), false, undefined)).resolves.toBeUndefined();
    // A literal is never sent to the resolver: the stub would not know it, and the answer would be "does not resolve".
    await expect(checkResolved(new URL("https://93.184.216.34/in"), false, resolver())).resolves.toBeUndefined();
  });

  it("webhook settings refuse a target whose name resolves to a private address, with a 400 naming targetUrl", async () => {
    const t = await tenant();
    const withResolver = { ...env, OUTBOUND_DNS_URL: `${integratorUrl()}/__dns-query` };
    const put = async (targetUrl: string) => {
      const ctx = createExecutionContext();
      const req = new Request(`${BASE}${hooks(t.appId)}/settings?hapikey=${encodeURIComponent(t.developerKey)}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ targetUrl, throttling: { maxConcurrentRequests: 10 } }),
      });
      const res = await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, withResolver, ctx);
      await waitOnExecutionContext(ctx);
      return { status: res.status, json: (await res.json()) as { message: string; errors?: { context?: { propertyName?: string[] } }[] } };
    };
    // As written, these names pass: no list of wildcard services can be complete.
    expect((await put("https://7f000001.a9fea9fe.rbndr.us/in")).status).toBe(400);
    const refused = await put("https://hooks.private-net.test/webhooks");
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe("Invalid body: targetUrl: the host hooks.private-net.test resolves to 10.20.30.40, a private, reserved or internal address");
    expect(refused.json.errors?.[0]?.context?.propertyName).toEqual(["targetUrl"]);
    // A name resolving to public addresses is stored (no subscription exists, so nothing is ever sent to it).
    expect((await put("https://public.example.test/webhooks")).status).toBe(200);
  });
});
