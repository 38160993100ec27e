import { describe, expect, it } from "vitest";
import { checkOutboundUrl, guardedFetch, OutboundError } from "../../src/lib/outbound";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";

const blocked = (url: string, allowLoopback = false) => {
  try {
    checkOutboundUrl(url, allowLoopback);
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    return (err as OutboundError).kind;
  }
  return "allowed";
};

describe("outbound guard: SSRF attempts in every encoding are refused before any socket", () => {
  it.each([
    "http://example.com/",
    "https://example.com:8443/",
    "ftp://example.com/",
    "https://user:pw@example.com/",
    "https://127.0.0.1/",
    "https://2130706433/", // decimal 127.0.0.1
    "https://0x7f000001/", // hex
    "https://0177.0.0.1/", // octal
    "https://127.1/",
    "https://0/",
    "https://0.0.0.0/",
    "https://10.0.0.1/",
    "https://172.16.5.4/",
    "https://192.168.1.1/",
    "https://100.64.0.1/", // CGNAT
    "https://169.254.169.254/latest/meta-data/", // cloud metadata
    "https://0xa9fea9fe/", // metadata, hex
    "https://2852039166/", // metadata, decimal
    "https://224.0.0.1/",
    "https://255.255.255.255/",
    "https://198.18.0.1/",
    "https://[::1]/",
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:169.254.169.254]/",
    "https://[::ffff:a9fe:a9fe]/",
    "https://[64:ff9b::a9fe:a9fe]/",
    // IPv4-translated (::ffff:0:0/96) and anything else outside global unicast 2000::/3.
    "https://[::ffff:0:7f00:1]/",
    "https://[::ffff:0:a9fe:a9fe]/",
    "https://[64:ff9b:1::a9fe:a9fe]/",
    "https://[4000::1]/",
    "https://[2002:7f00:1::]/",
    "https://[fd00::1]/",
    "https://[fe80::1]/",
    "https://[ff02::1]/",
    "https://localhost/",
    "https://api.localhost/",
    "https://metadata.google.internal/",
    "https://printer.local/",
    "https://intranet/",
    "not a url",
  ])("%s is blocked", (url) => {
    expect(blocked(url)).toBe("blocked");
  });

  it.each(["https://example.com/cards", "https://api.example.co.uk/x?y=1", "https://93.184.216.34/", "https://[2606:4700::1111]/"])(
    "%s is allowed",
    (url) => {
      expect(blocked(url)).toBe("allowed");
    },
  );

  it("ALLOW_LOOPBACK_OUTBOUND admits loopback and nothing else", () => {
    expect(blocked("http://127.0.0.1:8787/x", true)).toBe("allowed");
    expect(blocked("http://localhost:3000/x", true)).toBe("allowed");
    expect(blocked("http://[::1]:3000/x", true)).toBe("allowed");
    expect(blocked("http://10.0.0.1/x", true)).toBe("blocked");
    expect(blocked("http://169.254.169.254/x", true)).toBe("blocked");
    expect(blocked("http://example.com/x", true)).toBe("blocked");
  });
});

describe("outbound guard: names that resolve inward are refused as written (no resolution)", () => {
  it.each([
    // Reserved and internal suffixes.
    "https://card.invalid/",
    "https://x.localhost.invalid/",
    "https://cards.localhost/",
    "https://printer.local/",
    "https://metadata.google.internal/",
    "https://nas.home.arpa/",
    // Wildcard DNS names spelling a loopback, private, link-local or metadata address, in every form.
    "https://127.0.0.1.nip.io/",
    "https://app.127.0.0.1.nip.io/",
    "https://app-127-0-0-1.nip.io/",
    "https://7f000001.nip.io/",
    "https://169.254.169.254.nip.io/latest/meta-data/",
    "https://10.0.0.1.sslip.io/",
    "https://192-168-1-1.sslip.io/",
    "https://--1.sslip.io/",
    "https://fd00--1.sslip.io/",
    "https://127.0.0.1.xip.io/",
    "https://10-0-0-1.traefik.me/",
    "https://nip.io/",
    "https://no-address.nip.io/",
    // Public names that resolve to loopback.
    "https://localtest.me/",
    "https://api.localtest.me/",
    "https://lvh.me/",
    "https://shop.lvh.me/",
    "https://vcap.me/",
    "https://lacolhost.com/",
    "https://localho.st/",
    "https://fuf.me/",
  ])("%s is blocked", (url) => {
    expect(blocked(url)).toBe("blocked");
  });

  it.each(["https://93.184.216.34.nip.io/", "https://app-93-184-216-34.sslip.io/", "https://mylocaltest.me.example.com/"])("%s is allowed (a public address)", (url) => {
    expect(blocked(url)).toBe("allowed");
  });

  it("ALLOW_LOOPBACK_OUTBOUND admits the loopback names, and still no private address", () => {
    expect(blocked("http://127.0.0.1.nip.io:8787/x", true)).toBe("allowed");
    expect(blocked("http://api.localtest.me:8787/x", true)).toBe("allowed");
    expect(blocked("http://10.0.0.1.nip.io/x", true)).toBe("blocked");
    expect(blocked("http://169.254.169.254.nip.io/x", true)).toBe("blocked");
    expect(blocked("http://x.localhost.invalid/x", true)).toBe("blocked");
  });
});

describe("guardedFetch against a real local integrator", () => {
  const opts = { allowLoopback: true, timeoutMs: 1000, maxBytes: 1000 };

  it("sends only the given headers and returns the body", async () => {
    const path = integratorPath("plain");
    await script(path, { body: '{"hello":"world"}' });
    const res = await guardedFetch({ method: "POST", url: `${integratorUrl()}${path}`, headers: { "x-test": "1" }, body: "{}" }, opts);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ hello: "world" });
    const [seen] = await received(path);
    expect(seen?.headers["x-test"]).toBe("1");
    expect(seen?.headers.authorization).toBeUndefined();
    expect(seen?.headers.cookie).toBeUndefined();
  });

  it("times out, caps the size, and refuses a redirect to a private address without calling it", async () => {
    const slow = integratorPath("slow");
    await script(slow, { delayMs: 1500 });
    await expect(guardedFetch({ method: "GET", url: `${integratorUrl()}${slow}` }, opts)).rejects.toMatchObject({ kind: "timeout" });

    const big = integratorPath("big");
    await script(big, { bytes: 5000 });
    await expect(guardedFetch({ method: "GET", url: `${integratorUrl()}${big}` }, opts)).rejects.toMatchObject({ kind: "too_large" });

    const hop = integratorPath("hop");
    await script(hop, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
    await expect(guardedFetch({ method: "GET", url: `${integratorUrl()}${hop}` }, opts)).rejects.toMatchObject({ kind: "blocked" });

    const target = integratorPath("target");
    const ok = integratorPath("okhop");
    await script(ok, { status: 302, headers: { location: `${integratorUrl()}${target}` } });
    const res = await guardedFetch({ method: "GET", url: `${integratorUrl()}${ok}` }, opts);
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${integratorUrl()}${target}`);
  });
});
