// @ts-check
/**
 * @module Calls from the page to the Worker's session-authenticated JSON endpoints (/app/api/...). Every
 * state-changing call sends the session's CSRF token, read from <meta name="csrf-token">, in X-CSRF-Token.
 */

const meta = document.querySelector('meta[name="csrf-token"]');
const csrfToken = meta instanceof HTMLMetaElement ? meta.content : "";

/**
 * @typedef {{ ok: boolean, status: number, body: any }} ApiResult
 * `body` is the parsed JSON answer (null when there is none); its shape depends on the endpoint.
 */

/**
 * @param {"GET" | "POST"} method
 * @param {string} url
 * @param {unknown} [body]
 * @returns {Promise<ApiResult>} rejects only when the network fails
 */
export async function callApi(method, url, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET") headers["x-csrf-token"] = csrfToken;
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    cache: "no-store",
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    // not JSON: described by the status below
  }
  return { ok: res.ok, status: res.status, body: data };
}

/**
 * A sentence for a failed call, from the API's error envelope when there is one.
 * @param {ApiResult | null} res null when the request never got an answer
 */
export function failureText(res) {
  if (!res) return "The server could not be reached. Check your connection and try again.";
  if (res.status === 401) return "Your session has ended. Reload the page and sign in again.";
  const message = res.body && typeof res.body.message === "string" ? res.body.message : null;
  return message ?? `The server answered HTTP ${res.status}.`;
}
