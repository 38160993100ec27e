/**
 * @module The one outbound guard (the ecommerce import webhook, CRM card data fetches and action hooks, app
 * webhooks), against SSRF (docs/explanation/reliability.md, "SSRF on Workers").
 * Every call to an integrator-supplied URL goes through `guardedFetch`: https only, default ports, no IP
 * literal in a private, loopback, link-local, CGNAT or reserved range in any encoding (the WHATWG URL parser
 * normalises decimal, hex and octal IPv4 first), redirects re-validated hop by hop, a total timeout, a
 * response size cap, and fresh headers so the caller's credentials are never forwarded.
 * Names are judged as written first: reserved and internal suffixes are refused, names of the wildcard DNS
 * services by the address they spell, and the public loopback names count as loopback. With a resolver
 * (`OUTBOUND_DNS_URL`) they are also judged by every address they resolve to (checkResolved); without one,
 * what a name resolves to when the platform connects is the platform's to police (deployed, Cloudflare's
 * fetch refuses private addresses).
 * `ALLOW_LOOPBACK_OUTBOUND=true` (local development and tests only) admits 127.0.0.0/8, ::1, localhost
 * and the loopback names.
 */
import { readTextCapped } from "./stream";

export type OutboundFailure = "blocked" | "timeout" | "too_large" | "network" | "redirect";

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

const V4_BLOCKED: [number, number][] = [
  [0x00000000, 8], // "this" network
  [0x0a000000, 8], // private
  [0x64400000, 10], // CGNAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local, cloud metadata
  [0xac100000, 12], // private
  [0xc0000000, 24], // IETF protocol assignments
  [0xc0000200, 24], // TEST-NET-1
  [0xc0586300, 24], // 6to4 relay anycast
  [0xc0a80000, 16], // private
  [0xc6120000, 15], // benchmarking
  [0xc6336400, 24], // TEST-NET-2
  [0xcb007100, 24], // TEST-NET-3
  [0xe0000000, 4], // multicast
  [0xf0000000, 4], // reserved, broadcast
];

function parseV4(host: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

const inV4 = (ip: number, [net, bits]: [number, number]) => bits === 0 || (ip >>> (32 - bits)) === (net >>> (32 - bits));
const isLoopbackV4 = (ip: number) => inV4(ip, [0x7f000000, 8]);
const v4Blocked = (ip: number) => V4_BLOCKED.some((r) => inV4(ip, r));

/** Expands an IPv6 literal (without brackets) into 8 groups; null when it is not one. */
function parseV6(host: string): number[] | null {
  let text = host;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = parseV4(tail[1]!);
    if (v4 === null) return null;
    text = text.slice(0, -tail[1]!.length) + `${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...rest].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

type HostClass = "public" | "loopback" | "blocked";

function classifyV6(g: number[]): HostClass {
  const embeddedV4 = ((g[6]! << 16) | g[7]!) >>> 0;
  const allZero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (allZero(0, 7) && g[7] === 1) return "loopback"; // ::1
  if (allZero(0, 8)) return "blocked"; // ::
  if (allZero(0, 5) && g[5] === 0xffff) return classifyV4(embeddedV4); // IPv4-mapped
  if (allZero(0, 6)) return classifyV4(embeddedV4); // IPv4-compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b) return classifyV4(embeddedV4); // NAT64
  if (g[0] === 0x2002) return classifyV4(((g[1]! << 16) | g[2]!) >>> 0); // 6to4
  if ((g[0]! & 0xfe00) === 0xfc00) return "blocked"; // unique local
  if ((g[0]! & 0xffc0) === 0xfe80) return "blocked"; // link-local
  if ((g[0]! & 0xffc0) === 0xfec0) return "blocked"; // site-local (deprecated)
  if ((g[0]! & 0xff00) === 0xff00) return "blocked"; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "blocked"; // documentation
  if (g[0] === 0x0100 && allZero(1, 4)) return "blocked"; // discard-only
  if (g[0] === 0x2001 && g[1]! < 0x0200) return "blocked"; // IETF protocol assignments (Teredo, ORCHID...)
  // Only global unicast (2000::/3) is public; this also covers IPv4-translated ::ffff:0:0/96 (RFC 2765),
  // which a translator would carry to an IPv4 address the checks above never saw.
  if ((g[0]! & 0xe000) !== 0x2000) return "blocked";
  return "public";
}

function classifyV4(ip: number): HostClass {
  if (isLoopbackV4(ip)) return "loopback";
  return v4Blocked(ip) ? "blocked" : "public";
}

/**
 * Host names that name this machine or an internal network whatever DNS says: the special-use and
 * reserved suffixes (RFC 6761 `.invalid`, `.localhost`; RFC 6762 `.local`; RFC 8375 `.home.arpa`;
 * `.internal`, ICANN's private-use TLD) and the customary private ones.
 */
const INTERNAL_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|localdomain|invalid)$/i;

/** Public names whose every subdomain resolves to loopback (local-development conveniences). */
const LOOPBACK_DOMAINS = ["localtest.me", "lvh.me", "vcap.me", "lacolhost.com", "localho.st", "fuf.me"];

/**
 * Wildcard DNS services that resolve a name to the IP address written in it (`10.0.0.1.nip.io`,
 * `app-127-0-0-1.sslip.io`, `7f000001.nip.io`, `--1.sslip.io` for ::1): the name is judged by that address,
 * and refused when no address can be read from it.
 */
const WILDCARD_IP_DOMAINS = ["nip.io", "sslip.io", "xip.io", "traefik.me", "backname.io", "nip.direct", "localtest.direct"];

const under = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** The class of the address a wildcard-DNS name (without its domain) spells, or "blocked" when it spells none. */
function classifyEmbedded(prefix: string): HostClass {
  const dotted = /(?:^|[.-])(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})$/.exec(prefix);
  if (dotted) {
    const v4 = parseV4(dotted.slice(1, 5).join("."));
    return v4 === null ? "blocked" : classifyV4(v4);
  }
  const hex = /(?:^|[.-])([0-9a-f]{8})$/i.exec(prefix);
  if (hex) return classifyV4(parseInt(hex[1]!, 16) >>> 0);
  const label = prefix.split(".").pop() ?? "";
  if (label.includes("--") || /^[0-9a-f]{1,4}(-[0-9a-f]{1,4}){7}$/i.test(label)) {
    const v6 = parseV6(label.replace(/-/g, ":"));
    return v6 ? classifyV6(v6) : "blocked";
  }
  return "blocked";
}

export function classifyHost(hostname: string): HostClass {
  const host = hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  const v4 = parseV4(host);
  if (v4 !== null) return classifyV4(v4);
  if (host.includes(":")) {
    const v6 = parseV6(host);
    return v6 ? classifyV6(v6) : "blocked";
  }
  const lower = host.toLowerCase();
  if (lower === "localhost" || /\.localhost$/.test(lower)) return "loopback";
  if (LOOPBACK_DOMAINS.some((d) => under(lower, d))) return "loopback";
  const wildcard = WILDCARD_IP_DOMAINS.find((d) => under(lower, d));
  if (wildcard) return lower === wildcard ? "blocked" : classifyEmbedded(lower.slice(0, -wildcard.length - 1));
  if (INTERNAL_NAME.test(host) || !host.includes(".") || /^\d+$/.test(host.split(".").pop() ?? "")) return "blocked";
  if (/^metadata\./i.test(host)) return "blocked";
  return "public";
}

/** Answers the addresses (A and AAAA) a host name resolves to. */
export type Resolver = (host: string) => Promise<string[]>;

/** What one DNS-over-HTTPS JSON answer holds that matters here: type 1 is A, 28 is AAAA. */
interface DohAnswer {
  Status?: number;
  Answer?: { type: number; data: string }[];
}

/**
 * A resolver over DNS-over-HTTPS in the JSON form public resolvers serve (`GET ?name=&type=` with
 * `accept: application/dns-json`). Set `OUTBOUND_DNS_URL` to use one (docs/reference/configuration.md).
 */
export function dohResolver(endpoint: string, timeoutMs = 2_000): Resolver {
  return async (host) => {
    const addresses: string[] = [];
    for (const type of ["A", "AAAA"]) {
      const res = await fetch(`${endpoint}?name=${encodeURIComponent(host)}&type=${type}`, { headers: { accept: "application/dns-json" }, signal: AbortSignal.timeout(timeoutMs) });
      if (!res.ok) throw new OutboundError("blocked", `the DNS resolver answered ${res.status} for ${host}`);
      const body = (await res.json()) as DohAnswer;
      for (const a of body.Answer ?? []) if (a.type === 1 || a.type === 28) addresses.push(a.data);
    }
    return addresses;
  };
}

/** The resolver the deployment configured, if any. */
export const outboundResolver = (env: { OUTBOUND_DNS_URL?: string }): Resolver | undefined => (env.OUTBOUND_DNS_URL ? dohResolver(env.OUTBOUND_DNS_URL) : undefined);

/**
 * With a resolver, a host name is also judged by every address it resolves to: one private, reserved or
 * internal address refuses it (loopback only where loopback is allowed), and so does a name that does not
 * resolve. This closes what judging names as written leaves open (wildcard DNS services no list names,
 * names pointed at internal addresses). Deployed on Cloudflare, the platform's own fetch refuses such
 * addresses anyway; `wrangler dev` does not, which is where a resolver matters most.
 */
export async function checkResolved(url: URL, allowLoopback: boolean, resolver: Resolver | undefined): Promise<void> {
  if (!resolver) return;
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (parseV4(host) !== null || host.includes(":") || classifyHost(host) === "loopback") return; // judged by checkOutboundUrl
  let addresses: string[];
  try {
    addresses = await resolver(host);
  } catch (err) {
    if (err instanceof OutboundError) throw err;
    throw new OutboundError("blocked", `the host ${host} could not be resolved`);
  }
  if (!addresses.length) throw new OutboundError("blocked", `the host ${host} does not resolve`);
  for (const address of addresses) {
    const cls = classifyHost(address);
    if (cls === "public" || (cls === "loopback" && allowLoopback)) continue;
    throw new OutboundError("blocked", `the host ${host} resolves to ${address}, a private, reserved or internal address`);
  }
}

/** Parses and checks a URL the service is about to call; throws OutboundError("blocked") with a reason. */
export function checkOutboundUrl(raw: string, allowLoopback: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError("blocked", "not a valid absolute URL");
  }
  if (url.username || url.password) throw new OutboundError("blocked", "credentials in URLs are not allowed");
  const cls = classifyHost(url.hostname);
  if (cls === "loopback") {
    if (!allowLoopback) throw new OutboundError("blocked", "loopback addresses are not allowed");
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundError("blocked", "only http(s) URLs are allowed");
    return url; // local development and tests: any port on loopback
  }
  if (cls === "blocked") throw new OutboundError("blocked", `the host ${url.hostname} is a private, reserved or internal address`);
  if (url.protocol !== "https:") throw new OutboundError("blocked", "only https URLs are allowed");
  if (url.port !== "") throw new OutboundError("blocked", "only the default https port is allowed");
  return url;
}

export const loopbackAllowed = (env: { ALLOW_LOOPBACK_OUTBOUND?: string }) => env.ALLOW_LOOPBACK_OUTBOUND === "true";

export interface OutboundRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface OutboundOptions {
  allowLoopback: boolean;
  /** Resolves each host name before it is called (checkResolved); none: names are judged as written. */
  resolver?: Resolver;
  timeoutMs: number;
  maxBytes: number;
  /** Redirects followed (GET only), each hop re-validated; 0 means a redirect is an error. */
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The URL that finally answered. */
  url: string;
}

/** Calls an integrator through the guard. Only the headers given are sent; nothing of the caller's. */
export async function guardedFetch(req: OutboundRequest, opts: OutboundOptions): Promise<OutboundResponse> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let target = checkOutboundUrl(req.url, opts.allowLoopback);
  const maxRedirects = req.method === "GET" ? (opts.maxRedirects ?? 3) : 0;
  for (let hop = 0; ; hop++) {
    await checkResolved(target, opts.allowLoopback, opts.resolver);
    let res: Response;
    try {
      res = await fetch(target.toString(), {
        method: req.method,
        headers: { "user-agent": "crm-edge/1.0", ...req.headers },
        body: req.body,
        redirect: "manual",
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw new OutboundError("timeout", `no answer within ${opts.timeoutMs} ms`);
      throw new OutboundError("network", `connection failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
      await res.body?.cancel();
      if (hop >= maxRedirects) throw new OutboundError("redirect", `redirects are not followed here (status ${res.status})`);
      target = checkOutboundUrl(new URL(res.headers.get("location")!, target).toString(), opts.allowLoopback);
      continue;
    }
    const text = await readCapped(res, opts.maxBytes, signal, opts.timeoutMs);
    return { status: res.status, headers: res.headers, text, url: target.toString() };
  }
}

async function readCapped(res: Response, max: number, signal: AbortSignal, timeoutMs: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) {
    await res.body?.cancel();
    throw new OutboundError("too_large", `response larger than ${max} bytes`);
  }
  let text: string | null;
  try {
    text = await readTextCapped(res.body, max);
  } catch {
    if (signal.aborted) throw new OutboundError("timeout", `no complete answer within ${timeoutMs} ms`);
    throw new OutboundError("network", "the connection broke while reading the response");
  }
  if (text === null) throw new OutboundError("too_large", `response larger than ${max} bytes`);
  return text;
}
