/**
 * The OAuth walkthrough's redirect page (GET /oauth-callback): after consent the browser
 * lands on it; it shows the code and the curl that exchanges it, and that curl, run with the app's client
 * id and secret, returns tokens that work.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, BASE, call, expectError, tenant } from "../helpers/api";
import { form, signIn } from "../helpers/oauth-flow";

const CALLBACK = `${BASE}/oauth-callback`;

/** Decodes the few entities escapeHtml writes. */
const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** The `-d name=value` and `--data-urlencode 'name=value'` fields of the page's curl command. */
function curlFields(command: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of command.matchAll(/(?:-d |--data-urlencode ')([a-z_]+)=([^\s'\\]+)/g)) fields[m[1]!] = m[2]!;
  return fields;
}

describe("GET /oauth-callback", () => {
  it("after consent, shows the code and a curl that exchanges it for working tokens", async () => {
    const t = await tenant();
    const app = await admin("POST", "/admin/v1/apps", { name: "Walkthrough app", redirectUris: [CALLBACK] });
    const cookie = await signIn(t);
    const q = new URLSearchParams({ client_id: app.clientId, redirect_uri: CALLBACK, scope: "crm.objects.contacts.read", state: "walk" });
    const consent = await SELF.fetch(`${BASE}/oauth/authorize?${q}`, { headers: { cookie }, redirect: "manual" });
    const csrf = /name="csrf" value="([^"]+)"/.exec(await consent.text())![1]!;
    const approved = await form("/oauth/authorize", { ...Object.fromEntries(q), csrf, decision: "approve" }, cookie);
    expect(approved.status).toBe(302);
    const location = approved.headers.get("location")!;
    expect(location.startsWith(`${CALLBACK}?`)).toBe(true);

    const res = await call("GET", location.slice(BASE.length));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const code = new URL(location).searchParams.get("code")!;
    expect(res.text).toContain(code);
    expect(res.text).toContain("<code>walk</code>");
    const command = unescape(/<pre class="command">([\s\S]*?)<\/pre>/.exec(res.text)![1]!);
    expect(command).toContain(`curl -s -X POST '${BASE}/oauth/v1/token'`);

    // The command as a reader runs it, with the app's own client id and secret in place of the placeholders.
    const fields = curlFields(command);
    expect(fields).toMatchObject({ grant_type: "authorization_code", client_id: "YOUR_CLIENT_ID", client_secret: "YOUR_CLIENT_SECRET", redirect_uri: CALLBACK, code });
    const tokens = await form("/oauth/v1/token", { ...fields, client_id: app.clientId, client_secret: app.clientSecret });
    expect(tokens.status).toBe(200);
    const { access_token } = (await tokens.json()) as { access_token: string };
    const contacts = await call("GET", "/crm/v3/objects/contacts?limit=1", { token: access_token });
    expect(contacts.status).toBe(200);
    // The token is the consenting user's account's: the app was installed there, and only there.
    const info = await call("GET", `/oauth/v1/access-tokens/${access_token}`);
    expect(info.json.hub_id).toBe(t.portalId);
  });

  it("shows a denied consent's error, escaped, without a command", async () => {
    const res = await call("GET", `/oauth-callback?error=access_denied&error_description=${encodeURIComponent("<b>no</b>")}&state=s`);
    expect(res.status).toBe(200);
    expect(res.text).toContain("<code>access_denied</code>");
    expect(res.text).toContain("&lt;b&gt;no&lt;/b&gt;");
    expect(res.text).not.toContain("<b>no</b>");
    expect(res.text).not.toContain('class="command"');
  });

  it("without a code or an error, says what the page expects", async () => {
    const res = await call("GET", "/oauth-callback");
    expect(res.status).toBe(200);
    expect(res.text).toContain("This page expects ?code=");
  });

  it.each([
    ["a code over 200 characters", `code=${"a".repeat(201)}`],
    ["an error over 200 characters", `error=${"e".repeat(201)}`],
    ["a state over 2000 characters", `code=c&state=${"s".repeat(2001)}`],
  ])("refuses %s with a 400", async (_what, query) => {
    expectError(await call("GET", `/oauth-callback?${query}`), 400, "VALIDATION_ERROR");
  });

  it("POST is a 405", async () => {
    const res = await call("POST", "/oauth-callback?code=x");
    expect(res.status).toBe(405);
  });
});
