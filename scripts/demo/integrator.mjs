// @ts-check
/**
 * @module The demo integrator: a small Node HTTP server on loopback that `npm run dev` starts
 * beside the Worker, so the demo's CRM card has someone to answer it. It plays the integrator's side of
 * the card requests the service makes: it answers the card's data fetch with the record's own orders
 * (demoOrders: a STATUS and a CURRENCY property, all three action types), runs the action hooks, serves
 * the iframe pages that close the modal with DONE / CANCEL, and serves the page a timeline event opens.
 * Every data fetch and action hook must carry a valid v3 signature made with the app's client secret
 * (docs/how-to/verify-signatures.md); anything else is answered 401, which the card shows as its error.
 */
import { Buffer } from "node:buffer";
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

/** Prefix of every path the card calls; the card's baseUris is `<integrator>/demo/actions`. */
export const CARD_FETCH_PATH = "/demo/cards/orders";
export const ACTIONS_PATH = "/demo/actions";
export const TIMELINE_PAGE_PATH = "/demo/timeline/webinar";
/** Where the demo app's webhooks go (docs/reference/webhooks.md): the integrator logs every delivery it receives. */
export const WEBHOOKS_PATH = "/demo/webhooks";

/**
 * The demo app's webhook settings: every contact change goes to this integrator.
 * @param {string} integratorUrl
 */
export const webhookSettings = (integratorUrl) => ({ targetUrl: `${integratorUrl}${WEBHOOKS_PATH}`, throttling: { maxConcurrentRequests: 5 } });

/** The demo app's subscriptions: contact creation, deletion, merge and changes of four properties. */
export const DEMO_SUBSCRIPTIONS = [
  { eventType: "contact.creation" },
  { eventType: "contact.deletion" },
  { eventType: "contact.merge" },
  ...["firstname", "lastname", "email", "city"].map((propertyName) => ({ eventType: "contact.propertyChange", propertyName })),
  // What the web app changes too: a contact's associations, and a deal moved on the board.
  { eventType: "contact.associationChange" },
  { eventType: "deal.propertyChange", propertyName: "dealstage" },
];

/**
 * One line per webhook delivery: its attempt and each event.
 * @param {{ subscriptionType: string, objectId: number, attemptNumber: number, propertyName?: string, propertyValue?: string, mergedObjectIds?: number[] }[]} events
 */
export function describeDelivery(events) {
  const one = (/** @type {typeof events[number]} */ e) =>
    `${e.subscriptionType} ${e.objectId}${e.propertyName ? ` ${e.propertyName}=${JSON.stringify(e.propertyValue)}` : ""}${e.mergedObjectIds ? ` merged ${e.mergedObjectIds.join(",")}` : ""}`;
  return `demo integrator: webhook delivery (attempt ${events[0]?.attemptNumber ?? 0}, ${events.length} event(s)): ${events.map(one).join("; ")}`;
}

const V3_MAX_AGE_MS = 300_000;
/** The percent-encodings v3 verifiers decode in the URI before hashing (docs/how-to/verify-signatures.md; src/lib/signature.ts). */
const KEEP = /%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi;

/**
 * The v3 check of docs/reference/cards.md: timestamp within 5 minutes, then a constant-time comparison of
 * base64 HMAC-SHA256(secret, method + decoded URI + body + timestamp).
 * @param {{ secret: string, method: string, uri: string, body: string, headers: import("node:http").IncomingHttpHeaders, now?: number }} r
 * @returns {string | null} why the request is refused, or null when it verifies
 */
export function checkSignature(r) {
  const sig = r.headers["x-service-signature-v3"];
  const ts = Number(r.headers["x-service-request-timestamp"]);
  if (typeof sig !== "string") return "no v3 signature";
  if (!Number.isFinite(ts) || Math.abs((r.now ?? Date.now()) - ts) > V3_MAX_AGE_MS) return "timestamp outside the 5-minute window";
  const uri = r.uri.replace(KEEP, (m) => decodeURIComponent(m));
  const want = createHmac("sha256", r.secret).update(r.method + uri + r.body + String(ts)).digest();
  const got = Buffer.from(sig, "base64");
  return got.length === want.length && timingSafeEqual(got, want) ? null : "signature does not match";
}

/** @param {import("node:http").IncomingMessage} req */
const readBody = (req) =>
  new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });

const escapeHtml = (/** @type {string} */ s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * An integrator page shown in the CRM's iframe modal: its buttons post DONE or CANCEL to the parent
 * window as a JSON string (`action` DONE or CANCEL), which closes the modal (DONE also reloads the card).
 * @param {string} title
 * @param {string} text
 */
function iframePage(title, text) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:1.5rem;color:#1f2937}h1{font-size:1.25rem;margin:0 0 .5rem}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem;border-radius:6px;border:1px solid #9ca3af;background:#fff;cursor:pointer}
button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}.note{color:#4b5563}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>
<p class="note">This page is served by the demo integrator (another origin), inside the CRM's modal.</p>
<button id="done" class="primary" type="button">Done</button><button id="cancel" type="button">Cancel</button>
<script>
const send = (action) => window.parent.postMessage(JSON.stringify({ action }), "*");
document.getElementById("done").addEventListener("click", () => send("DONE"));
document.getElementById("cancel").addEventListener("click", () => send("CANCEL"));
</script></body></html>`;
}

const STATUS_OPTIONS = [
  { type: "WARNING", label: "Awaiting payment", name: "awaiting_payment" },
  { type: "INFO", label: "Paid", name: "paid" },
  { type: "SUCCESS", label: "Shipped", name: "shipped" },
  { type: "DANGER", label: "Cancelled", name: "cancelled" },
];

/** The demo orders are dated back from this day. */
const DAY_MS = 86_400_000;
const PLACED_FROM = Date.UTC(2026, 10, 20);

/**
 * The orders the demo shop has for a record: two to four, numbered, priced, dated and counted from the
 * record's id, so every record shows its own. The first is open (paid or awaiting payment, so it can be
 * shipped), the second shipped, a third cancelled; totals stay under 1,000.
 * @param {string} type CONTACT or DEAL
 * @param {number} recordId
 * @returns {{ id: number, status: string, statusLabel: string, total: string, placed: string, items: number }[]}
 */
export function demoOrders(type, recordId) {
  const seed = (Math.imul(recordId ^ (type === "DEAL" ? 0x5bd1e995 : 0), 2654435761) >>> 0) % 1_000_003;
  const count = 2 + (seed % 3);
  const base = 1000 + (recordId % 9000) * 10 + (type === "DEAL" ? 5 : 0);
  return Array.from({ length: count }, (_, n) => {
    const status = n === 0 ? (seed % 2 ? "paid" : "awaiting_payment") : n === 2 ? "cancelled" : "shipped";
    const cents = 1990 + ((seed >> (n * 3)) % 90_000);
    const placed = new Date(PLACED_FROM - (n * 11 + (seed % 9)) * DAY_MS).toISOString().slice(0, 10);
    return {
      id: base + n,
      status,
      statusLabel: STATUS_OPTIONS.find((o) => o.name === status)?.label ?? status,
      total: (cents / 100).toFixed(2),
      placed,
      items: 1 + ((seed >> n) % 4),
    };
  });
}

/**
 * The card's record type as the demo registers it: shown on contacts and deals, with a STATUS
 * and a CURRENCY property, and the contact's email sent with each data fetch.
 * @param {string} integratorUrl
 * @param {number} appId
 */
export function cardDefinition(integratorUrl, appId) {
  return {
    applicationId: appId,
    title: "Shop orders",
    baseUris: [`${integratorUrl}${ACTIONS_PATH}`],
    dataFetchUri: `${integratorUrl}${CARD_FETCH_PATH}`,
    associatedHubSpotObjectTypes: ["CONTACT", "DEAL"],
    associatedHubSpotObjectTypeProperties: { CONTACT: ["email"] },
    propertyDefinitions: [
      { name: "status", label: "Status", dataType: "STATUS", options: STATUS_OPTIONS },
      { name: "total", label: "Total", dataType: "CURRENCY" },
      { name: "placed", label: "Placed", dataType: "DATE" },
    ],
  };
}

/**
 * Starts the demo integrator on 127.0.0.1. `secret` is read on every request: the app (and so its client
 * secret) may be created after the server is listening.
 * `webhooks` gets one line per webhook delivery (default: `log`).
 * @param {{ port?: number, secret: () => string | undefined, log?: (line: string) => void, webhooks?: (line: string) => void }} opts
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export function startDemoIntegrator(opts) {
  const log = opts.log ?? (() => {});
  /** Order statuses changed by the action hooks, by order id. */
  const statuses = new Map();
  /** @type {string} */
  let url = "";

  /**
   * The record's orders (demoOrders) as card items, with the statuses the action hooks changed.
   * @param {string} type
   * @param {number} recordId
   * @param {string | undefined} email
   */
  function orders(type, recordId, email) {
    const actions = `${url}${ACTIONS_PATH}`;
    return demoOrders(type, recordId).map((o) => {
      const id = o.id;
      const status = statuses.get(id) ?? o.status;
      const open = status === "paid" || status === "awaiting_payment";
      return {
        objectId: id,
        title: `Order #${id}`,
        link: `${url}/demo/orders/${id}`,
        status,
        total: { value: o.total, currencyCode: "EUR" },
        placed: o.placed,
        properties: [
          { label: "Items", dataType: "NUMERIC", value: String(o.items) },
          ...(email ? [{ label: "Customer", dataType: "EMAIL", value: email }] : []),
        ],
        actions: [
          ...(open ? [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${actions}/orders/${id}/ship`, label: "Mark as shipped", associatedObjectProperties: [] }] : []),
          ...(status !== "cancelled"
            ? [
                {
                  type: "CONFIRMATION_ACTION_HOOK",
                  httpMethod: "POST",
                  uri: `${actions}/orders/${id}/cancel`,
                  label: "Cancel order",
                  associatedObjectProperties: [],
                  confirmationMessage: `Cancel order #${id}? The customer is notified.`,
                  confirmButtonText: "Cancel the order",
                  cancelButtonText: "Keep it",
                },
              ]
            : []),
          { type: "IFRAME", width: 640, height: 420, uri: `${actions}/orders/${id}/edit`, label: "Edit order", associatedObjectProperties: [] },
        ],
      };
    });
  }

  const server = createServer(async (req, res) => {
    const body = /** @type {string} */ (await readBody(req));
    const target = new URL(req.url ?? "/", url);
    const path = target.pathname;
    const send = (/** @type {number} */ status, /** @type {unknown} */ payload) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
    };
    const page = (/** @type {string} */ title, /** @type {string} */ text) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(iframePage(title, text));
    };

    // Pages the browser opens (iframe modal, links): not signed, the browser asks for them directly.
    if (req.method === "GET" && path === TIMELINE_PAGE_PATH) return page("Webinar recording", "The recording of the webinar would play here.");
    if (req.method === "GET" && path === `${ACTIONS_PATH}/new-order`) return page("Create an order", "A form for a new order would be here.");
    if (req.method === "GET" && path === `${ACTIONS_PATH}/settings`) return page("Shop settings", "The integrator's settings for this account would be here.");
    let m = /^\/demo\/actions\/orders\/(\d+)\/edit$/.exec(path);
    if (req.method === "GET" && m) return page(`Edit order #${m[1]}`, "Change the order here, then press Done (the card reloads) or Cancel.");
    m = /^\/demo\/orders\/(\d+)$/.exec(path);
    if (req.method === "GET" && m) return page(`Order #${m[1]}`, "The shop's own page for this order.");

    // Calls from crm-edge (data fetches, action hooks): signed with the app's client secret.
    const secret = opts.secret();
    const refused = secret ? checkSignature({ secret, method: req.method ?? "GET", uri: `http://${req.headers.host}${req.url}`, body, headers: req.headers }) : "the demo app is not set up yet";
    if (refused) {
      log(`demo integrator: refused ${req.method} ${path}: ${refused}`);
      return send(401, { message: `Request refused by the demo integrator: ${refused}` });
    }
    if (req.method === "GET" && path === CARD_FETCH_PATH) {
      const type = target.searchParams.get("associatedObjectType") ?? "CONTACT";
      const recordId = Number(target.searchParams.get("associatedObjectId") ?? 0);
      const actions = `${url}${ACTIONS_PATH}`;
      const results = orders(type, recordId, target.searchParams.get("email") ?? undefined);
      return send(200, {
        results,
        totalCount: results.length,
        allItemsLink: `${url}/demo/orders/all`,
        itemLabel: "orders",
        primaryAction: { type: "IFRAME", width: 640, height: 420, uri: `${actions}/new-order`, label: "Create order", associatedObjectProperties: [] },
        secondaryActions: [],
        settingsAction: { type: "IFRAME", width: 640, height: 420, uri: `${actions}/settings`, label: "Settings" },
      });
    }
    if (req.method === "POST" && path === WEBHOOKS_PATH) {
      (opts.webhooks ?? log)(describeDelivery(JSON.parse(body)));
      return send(200, { message: "received" });
    }
    m = /^\/demo\/actions\/orders\/(\d+)\/(ship|cancel)$/.exec(path);
    if (req.method === "POST" && m) {
      const id = Number(m[1]);
      statuses.set(id, m[2] === "ship" ? "shipped" : "cancelled");
      return send(200, { message: m[2] === "ship" ? `Order #${id} is marked as shipped.` : `Order #${id} was cancelled.` });
    }
    return send(404, { message: `The demo integrator has nothing at ${path}` });
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => {
      const addr = server.address();
      url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
      resolve({ url, close: () => new Promise((r) => server.close(() => r(undefined))) });
    });
  });
}
