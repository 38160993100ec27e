/**
 * Type-checking views of the OAuth client libraries the node tests run unmodified. None of
 * them ships typings (the @types packages would be further dependencies for three calls each); the
 * signatures below are those of the packages' own sources: simple-oauth2 5.1.0 (lib/client, lib/access-token),
 * passport-oauth2 1.8.0 (lib/strategy.js), passport-hubspot-oauth2 1.0.3 (lib/passport-hubspot-oauth/oauth2.js)
 * and node-oauth's OAuth2 (`_oauth2`) they build on.
 */
declare module "simple-oauth2" {
  interface Config {
    client: { id: string; secret: string };
    auth: { tokenHost: string; tokenPath?: string; authorizeHost?: string; authorizePath?: string };
    options?: { authorizationMethod?: "header" | "body"; bodyFormat?: "form" | "json" };
  }
  interface Token {
    access_token: string;
    refresh_token: string;
    expires_in: number;
    token_type: string;
    [k: string]: unknown;
  }
  interface AccessToken {
    token: Token;
    expired(expirationWindowSeconds?: number): boolean;
    refresh(params?: Record<string, unknown>): Promise<AccessToken>;
  }
  export class AuthorizationCode {
    constructor(config: Config);
    authorizeURL(params: { redirect_uri: string; scope?: string | string[]; state?: string }): string;
    getToken(params: { code: string; redirect_uri: string; scope?: string | string[] }): Promise<AccessToken>;
  }
}

declare module "passport-oauth2" {
  type Verify = (accessToken: string, refreshToken: string, params: Record<string, unknown>, profile: unknown, done: (err: unknown, user?: unknown) => void) => void;
  interface Options {
    authorizationURL: string;
    tokenURL: string;
    clientID: string;
    clientSecret: string;
    callbackURL: string;
    state?: boolean;
    pkce?: boolean;
    scope?: string | string[];
    scopeSeparator?: string;
  }
  interface OAuth2 {
    getOAuthAccessToken(code: string, params: Record<string, string>, cb: (err: unknown, accessToken: string, refreshToken: string, results: Record<string, unknown>) => void): void;
  }
  class OAuth2Strategy {
    constructor(options: Options, verify: Verify);
    name: string;
    _oauth2: OAuth2;
    /** The middleware body passport runs; it answers through the augmentation methods below. */
    authenticate(req: unknown, options?: Record<string, unknown>): void;
    redirect(url: string, status?: number): void;
    success(user: unknown, info?: unknown): void;
    fail(challenge?: unknown, status?: number): void;
    error(err: unknown): void;
    pass(): void;
  }
  export = OAuth2Strategy;
}

declare module "passport-hubspot-oauth2" {
  import OAuth2Strategy from "passport-oauth2";
  type Options = Omit<ConstructorParameters<typeof OAuth2Strategy>[0], "authorizationURL" | "tokenURL"> & { authorizationURL?: string; tokenURL?: string };
  export class Strategy extends OAuth2Strategy {
    constructor(options: Options, verify: ConstructorParameters<typeof OAuth2Strategy>[1]);
  }
}
