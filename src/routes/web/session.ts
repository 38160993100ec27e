/**
 * @module Sign-in and sign-out pages for users of an account: PBKDF2 passwords, the session cookie, CSRF
 * (a session's token on forms; the browser's Origin / Sec-Fetch-Site on sign-in, which has no session yet),
 * throttled sign-in (src/lib/login-throttle.ts) and a `next` that never leaves the app (safeNext).
 */
import { eq } from "drizzle-orm";
import { z } from "zod";
import { accounts, users } from "../../db/tables/tenancy";
import { admission, suspendedError } from "../../services/accounts/status";
import { safeNext } from "../../http/app-session";
import { verifyPassword } from "../../lib/crypto";
import { bearerChallenge } from "../../lib/errors";
import { escapeHtml, page, PAGE_CSP } from "../../lib/html";
import { html } from "../../lib/http";
import { giveBack, loginBuckets, startAttempt } from "../../lib/login-throttle";
import { route } from "../../http/route";
import { checkCsrf, endSession, isCrossSitePost, readAnySession, sessionCookie, startSession } from "../../http/session";

const tag = "Session";
const headers = { "content-security-policy": PAGE_CSP, "cache-control": "no-store" };

function loginPage(next: string, error?: string) {
  return page(
    "Sign in",
    // Say what this is: a newcomer arrives here first from the demo's summary.
    `<p class="brand-line">crm-edge</p><h1>Sign in</h1><p class="muted">Records, timelines, CRM cards and ecommerce stores of your account.</p>${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/login"><input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`,
  );
}

export const sessionRoutes = [
  route({
    method: "GET",
    path: "/login",
    summary: "Sign-in page",
    tag,
    auth: { kinds: [] },
    query: z.object({ next: z.string().max(2000).optional() }),
    responses: { 200: { description: "Sign-in page", html: true } },
    handler: ({ query, url }) => html(loginPage(safeNext(query.next, url)), 200, headers),
  }),
  route({
    method: "POST",
    path: "/login",
    summary: "Sign in",
    tag,
    auth: { kinds: [] },
    bodyFormat: "form",
    body: z.object({ email: z.string().max(254), password: z.string().max(200), next: z.string().max(2000).optional() }),
    responses: {
      303: { description: "Signed in" },
      401: { description: "Wrong email or password", html: true },
      403: { description: "Posted by another site's page (login CSRF); or the user's account is suspended (then the JSON error envelope, FORBIDDEN)", html: true },
      429: { description: "Too many failed sign-ins for this email address or client address (Retry-After)", html: true },
    },
    handler: async ({ control: db, env, request, body, url, now }) => {
      const next = safeNext(body.next, url);
      if (isCrossSitePost(request, url)) {
        return html(loginPage(next, "This sign-in form was sent from another site. Sign in on this page instead."), 403, headers);
      }
      const email = body.email.trim().toLowerCase();
      // Counted before any password is hashed: a throttled attempt costs no PBKDF2.
      const attempt = await startAttempt(env, await loginBuckets(email, request), now);
      if (!attempt.allowed) {
        // The count frees up just after retryAfterMs (when the oldest counted failure stops counting), hence the +1 ms.
        const seconds = Math.ceil((attempt.retryAfterMs + 1) / 1000);
        const error = `Too many failed sign-ins. Try again in ${Math.ceil(attempt.retryAfterMs / 60_000)} minute(s).`;
        return html(loginPage(next, error), 429, { ...headers, "retry-after": String(seconds) });
      }
      const candidates = await db
        .select({ userId: users.userId, portalId: users.portalId, passwordHash: users.passwordHash, status: accounts.status })
        .from(users)
        .leftJoin(accounts, eq(accounts.portalId, users.portalId))
        .where(eq(users.email, email))
        .limit(5)
        .all();
      let user: (typeof candidates)[number] | undefined;
      for (const c of candidates) if (await verifyPassword(body.password, c.passwordHash) && admission(c.status) !== "gone") user = c;
      if (candidates.length === 0) await verifyPassword(body.password, null); // same cost for unknown emails
      // Stays counted. A 401 carries a challenge (RFC 9110, section 15.5.2); a browser ignores Bearer.
      if (!user) return html(loginPage(next, "Wrong email or password."), 401, { ...headers, "www-authenticate": bearerChallenge() });
      await giveBack(env, attempt.counted);
      // A suspended account's users know their password but may not sign in (docs/how-to/account-lifecycle.md).
      if (admission(user.status) === "suspended") throw suspendedError(user.portalId);
      const s = await startSession(db, user.userId, user.portalId, now);
      return new Response(null, {
        status: 303,
        headers: { location: next, "set-cookie": sessionCookie(url, s.token, s.maxAgeS), "cache-control": "no-store" },
      });
    },
  }),
  route({
    method: "POST",
    path: "/logout",
    summary: "Sign out",
    tag,
    auth: { kinds: [] },
    bodyFormat: "form",
    body: z.object({ csrf: z.string().max(200).optional() }),
    responses: { 303: { description: "Signed out" }, 403: { description: "CSRF token missing or wrong" } },
    handler: async ({ control: db, request, body, url, now }) => {
      const session = await readAnySession(db, request, now);
      if (session) {
        checkCsrf(session, body.csrf);
        await endSession(db, request);
      }
      return new Response(null, { status: 303, headers: { location: "/login", "set-cookie": sessionCookie(url, "", 0) } });
    },
  }),
];
