/**
 * @module A redirect page for trying OAuth by hand (docs/tutorials/oauth.md): register
 * `<origin>/oauth-callback` as an app's redirect URI, and after consent the browser lands here. The page shows
 * the authorization code (or the error) and the curl that exchanges it; it never exchanges anything itself, so
 * the client secret stays with whoever holds it. The demo app of `npm run dev` registers this page.
 */
import { z } from "zod";
import { escapeHtml, page, PAGE_CSP } from "../../lib/html";
import { html } from "../../lib/http";
import { route } from "../../http/route";

const callbackQuery = z.object({
  code: z.string().max(200).optional(),
  state: z.string().max(2000).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
});

/** The shell command that exchanges `code` (POST /oauth/v1/token, grant_type=authorization_code). */
export function exchangeCommand(origin: string, code: string): string {
  return [
    `curl -s -X POST '${origin}/oauth/v1/token' \\`,
    "  -d grant_type=authorization_code \\",
    "  -d client_id=YOUR_CLIENT_ID \\",
    "  -d client_secret=YOUR_CLIENT_SECRET \\",
    `  --data-urlencode 'redirect_uri=${origin}/oauth-callback' \\`,
    `  -d code=${code}`,
  ].join("\n");
}

function body(origin: string, q: z.infer<typeof callbackQuery>): string {
  const state = q.state === undefined ? "" : `<p>state: <code>${escapeHtml(q.state)}</code></p>`;
  if (q.error !== undefined || q.code === undefined) {
    const error = q.error ?? "no code";
    const description = q.error_description ?? "This page expects ?code= (or ?error=) from an authorization redirect.";
    return `<h1>No authorization code</h1>
<p class="error">The authorization ended with <code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p>${state}
<p>Start again from <code>/oauth/authorize</code> with your app's client_id, this page as redirect_uri and a scope.</p>`;
  }
  return `<h1>Authorization code received</h1>
<p>The user consented. Your app exchanges this code for tokens within 10 minutes; it works once.</p>
<p>code: <code>${escapeHtml(q.code)}</code></p>${state}
<p>Exchange it with your app's client id and secret (for the demo app of <code>npm run dev</code>, they are
<code>$CLIENT_ID</code> and <code>$CLIENT_SECRET</code> in the lines it prints, and <code>clientId</code> and
<code>clientSecret</code> in <code>.wrangler/demo.json</code>; docs/tutorials/oauth.md walks through it):</p>
<pre class="command">${escapeHtml(exchangeCommand(origin, q.code))}</pre>
<p>The answer holds an <code>access_token</code> (30 minutes) and a <code>refresh_token</code>; see <a href="/docs">the API reference</a>.</p>`;
}

export const oauthCallbackRoutes = [
  route({
    method: "GET",
    path: "/oauth-callback",
    summary: "A redirect page for trying OAuth by hand: shows the authorization code and the curl that exchanges it",
    tag: "OAuth",
    auth: { kinds: [] },
    query: callbackQuery,
    responses: { 200: { description: "The code (or the error) and the command that exchanges it", html: true } },
    handler: async ({ url, query }) =>
      html(page("Authorization code", body(url.origin, query)), 200, {
        "content-security-policy": PAGE_CSP,
        // The code must not leave in a Referer header when the user follows a link.
        "referrer-policy": "no-referrer",
        "cache-control": "no-store",
      }),
  }),
];
