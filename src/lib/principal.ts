/** @module Who is calling: the principal a request's credential resolves to (docs/reference/endpoints.md). */
import { ApiError } from "./errors";

export type Principal =
  | { kind: "anonymous" }
  | { kind: "admin" }
  | {
      kind: "oauth";
      portalId: number;
      appId: number;
      installId: number;
      userId: number | null;
      scopes: string[];
      credentialKey: string;
      /** The account's requests per 10 s for each install or private app; null = default. */
      rateLimit: number | null;
      /** The account's shard (accounts.shard; null = control plane), carried so routing costs no read. */
      shard: string | null;
      /** The shard of the account's companion tables when they live apart (accounts.companion); absent: on `shard`. */
      companion?: string;
      /** The account is a test account (DEVELOPER_TEST or SANDBOX): its calls look up its fault rules. */
      testAccount?: true;
      /** A test account's search lag quirk (docs/reference/testkit.md "Quirks"), in ms; absent: none. */
      searchLagMs?: number;
      /** A test account's clock (docs/reference/testkit.md "Clock"): ms its time runs ahead of real time; absent: real time. */
      clockOffsetMs?: number;
    }
  | { kind: "private_app"; portalId: number; privateAppId: number; scopes: string[]; credentialKey: string; rateLimit: number | null; shard: string | null; companion?: string; testAccount?: true; searchLagMs?: number; clockOffsetMs?: number }
  | { kind: "developer"; appId: number; credentialKey: string }
  /** A signed-in user of the web app (session cookie); rateLimit as for an install, counted per user. */
  | { kind: "session"; portalId: number; userId: number; csrfToken: string; rateLimit: number | null; shard: string | null; companion?: string; clockOffsetMs?: number };

export type CredentialKind = Exclude<Principal["kind"], "anonymous">;
export type AccountPrincipal = Extract<Principal, { kind: "oauth" | "private_app" | "session" }>;
export type DeveloperPrincipal = Extract<Principal, { kind: "developer" }>;
/** What a bearer credential stored in D1 resolves to (and what the isolate's credential cache keeps). */
export type CredentialPrincipal = Extract<Principal, { kind: "oauth" | "private_app" | "developer" }>;

/** A developer key may only act for its own app; another app's resources are not found (no existence leak). */
export function requireOwnApp(p: Principal, appId: number): void {
  if (p.kind === "developer" && p.appId !== appId) throw new ApiError("OBJECT_NOT_FOUND", `App ${appId} not found`);
  if (p.kind === "oauth" && p.appId !== appId) throw new ApiError("OBJECT_NOT_FOUND", `App ${appId} not found`);
}
