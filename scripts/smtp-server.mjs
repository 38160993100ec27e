// @ts-check
/**
 * @module The local SMTP endpoint of `npm run dev` (docs/how-to/send-mail.md). A Worker cannot accept SMTP,
 * so this small Node server (nodemailer's smtp-server, on loopback) speaks it in front of the Worker, as an
 * operator's relay would when deployed: it requires AUTH PLAIN or LOGIN with an account's SMTP API token,
 * checks the token through the operator API (`POST /admin/v1/smtp/verify`, 535 when refused), parses each
 * message with mailparser and hands it to `POST /admin/v1/smtp/messages`, which records it in the token's
 * account. It delivers nothing further: the mail shows in the account's sent mail (web app `/app/mail`).
 */
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** The operator API caps a request at 1 MiB; a message near that would be refused there anyway. */
export const MAX_MESSAGE_BYTES = 900 * 1024;

/**
 * @typedef {{ userName: string, password: string }} Credentials
 * @typedef {Error & { responseCode?: number }} SmtpError
 */

/**
 * @param {number} code
 * @param {string} message
 * @returns {SmtpError}
 */
function smtpError(code, message) {
  /** @type {SmtpError} */
  const err = new Error(message);
  err.responseCode = code;
  return err;
}

/**
 * The addresses of a parsed header (`to`, `cc`), in order.
 * @param {import("mailparser").AddressObject | import("mailparser").AddressObject[] | undefined} field
 * @returns {string[]}
 */
function addressesOf(field) {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  /** @type {string[]} */
  const out = [];
  /** @param {import("mailparser").EmailAddress[]} list */
  const walk = (list) => {
    for (const a of list) {
      if (a.address) out.push(a.address);
      if (a.group) walk(a.group);
    }
  };
  for (const o of objects) walk(o.value);
  return out;
}

/**
 * Starts the server on `host:port` (port 0: any free port) and resolves once it listens.
 * @param {{ apiBase: string, adminToken: string, port: number, host?: string, log?: (line: string) => void }} o
 * @returns {Promise<{ port: number, host: string, close: () => Promise<void> }>}
 */
export async function startSmtpServer(o) {
  const host = o.host ?? "127.0.0.1";
  const log = o.log ?? (() => {});
  /**
   * @param {string} path
   * @param {unknown} body
   */
  const operator = async (path, body) => {
    const res = await fetch(`${o.apiBase}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${o.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    return { status: res.status, text };
  };

  const server = new SMTPServer({
    name: "crm-edge.local",
    banner: "crm-edge local SMTP (mail is recorded, not delivered)",
    authMethods: ["PLAIN", "LOGIN"],
    // Loopback only, so AUTH without TLS is acceptable here; a deployed relay must offer TLS.
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onAuth(auth, _session, callback) {
      const creds = { userName: auth.username ?? "", password: auth.password ?? "" };
      operator("/admin/v1/smtp/verify", creds).then(
        (res) => {
          if (res.status === 200) return callback(null, { user: creds });
          log(`smtp: AUTH refused for ${creds.userName} (${res.status})`);
          // 535 for every refused token; anything else from the API is a temporary failure of ours.
          callback(res.status === 401 || res.status === 400 ? smtpError(535, "Authentication credentials invalid") : smtpError(454, "Temporary authentication failure"));
        },
        (err) => {
          log(`smtp: the operator API did not answer: ${err instanceof Error ? err.message : err}`);
          callback(smtpError(454, "Temporary authentication failure"));
        },
      );
    },
    onData(stream, session, callback) {
      /** @type {Credentials} */
      const creds = session.user;
      simpleParser(stream)
        .then(async (parsed) => {
          if (/** @type {{ sizeExceeded?: boolean }} */ (stream).sizeExceeded) throw smtpError(552, `Message larger than ${MAX_MESSAGE_BYTES} bytes`);
          const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
          const recipients = session.envelope.rcptTo.map((r) => r.address);
          const headerTo = addressesOf(parsed.to);
          const cc = addressesOf(parsed.cc);
          // Envelope recipients the headers do not show are the blind copies.
          const shown = new Set([...headerTo, ...cc].map((a) => a.toLowerCase()));
          const bcc = recipients.filter((r) => !shown.has(r.toLowerCase()));
          const message = {
            ...creds,
            from: parsed.from?.value[0]?.address || envelopeFrom,
            to: headerTo.length ? headerTo : recipients,
            cc,
            bcc: headerTo.length ? bcc : [],
            subject: parsed.subject,
            text: parsed.text,
            html: typeof parsed.html === "string" ? parsed.html : undefined,
          };
          const res = await operator("/admin/v1/smtp/messages", message);
          if (res.status === 201) {
            log(`smtp: recorded mail ${JSON.parse(res.text).id} from ${creds.userName}`);
            return callback(null, `Recorded as ${JSON.parse(res.text).id}`);
          }
          log(`smtp: the operator API refused a message (${res.status}): ${res.text}`);
          if (res.status === 401) throw smtpError(535, "Authentication credentials invalid");
          if (res.status === 413) throw smtpError(552, "Message too large");
          if (res.status === 400) throw smtpError(554, `Message refused: ${JSON.parse(res.text).message ?? "invalid"}`.slice(0, 400));
          throw smtpError(451, "Temporary failure, try again later");
        })
        .catch((err) => {
          // Drain what is left of the message, so the client reads our answer.
          stream.resume();
          callback(err && /** @type {SmtpError} */ (err).responseCode ? err : smtpError(451, "Temporary failure, try again later"));
        });
    },
  });
  server.on("error", (err) => log(`smtp: ${err.message}`));

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, host, () => {
      server.off("error", reject);
      resolve(undefined);
    });
  });
  const address = /** @type {import("node:net").AddressInfo} */ (server.server.address());
  return {
    port: address.port,
    host,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}
