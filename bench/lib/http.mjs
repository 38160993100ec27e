/**
 * A lean HTTP/1.1 client for the load phases (node:http with keep-alive: fetch/undici costs more CPU per
 * request, and on a 2-core machine the client shares the cores with workerd). Each request records its
 * status and latency; `load` runs a closed loop of N requests at a fixed concurrency.
 */
import http from "node:http";
import { percentile } from "./stats.mjs";

export function client(baseUrl, { host } = {}) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  /**
   * A keep-alive socket the server closed while idle fails the next request sent on it with ECONNRESET
   * before the server saw it; Node's documentation advises retrying exactly that case (req.reusedSocket).
   */
  async function request(method, path, opts = {}) {
    try {
      return await once(method, path, opts);
    } catch (err) {
      if (err?.reusedSocket && err.code === "ECONNRESET") return once(method, path, opts);
      throw err;
    }
  }
  function once(method, path, { token, body, headers = {} } = {}) {
    const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const h = { ...headers };
    if (host) h.host = host;
    if (token) h.authorization = `Bearer ${token}`;
    if (payload !== undefined) {
      h["content-type"] ??= "application/json";
      h["content-length"] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const req = http.request({ host: url.hostname, port: url.port, method, path, headers: h, agent }, (res) => {
        const parts = [];
        res.on("data", (c) => parts.push(c));
        res.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8");
          resolve({ status: res.statusCode, text, ms: performance.now() - started, headers: res.headers });
        });
        res.on("error", reject);
      });
      req.on("error", (err) => {
        err.reusedSocket = req.reusedSocket;
        reject(err);
      });
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
  async function json(method, path, opts = {}) {
    const res = await request(method, path, opts);
    let parsed;
    try {
      parsed = res.text ? JSON.parse(res.text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { ...res, json: parsed };
  }
  return { request, json, close: () => agent.destroy() };
}

/**
 * Closed-loop load: `count` requests, `concurrency` in flight; `make(i)` returns [method, path, opts].
 * Answers requests/s, latency percentiles and the status counts (5xx are counted, never thrown).
 */
export async function load({ http: c, concurrency, count, make, onProgress }) {
  const latencies = [];
  const statuses = {};
  let next = 0;
  let done = 0;
  let failures = 0;
  const started = performance.now();
  async function worker() {
    while (next < count) {
      const i = next++;
      const [method, path, opts] = make(i);
      try {
        const res = await c.request(method, path, opts);
        latencies.push(res.ms);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      } catch {
        failures++;
      }
      done++;
      onProgress?.(done, count);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    rps: count / seconds,
    seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses,
    failures,
    serverErrors: Object.entries(statuses).filter(([s]) => Number(s) >= 500).reduce((n, [, v]) => n + v, 0) + failures,
  };
}
