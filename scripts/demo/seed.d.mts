/** @module Types of the demo seeding module (seed.mjs) for the TypeScript tests that import it. */

/** What seeding returns and `npm run dev` keeps in .wrangler/demo.json. */
export interface Demo {
  portalId: number;
  appId: number;
  clientId: string;
  clientSecret: string;
  developerKey: string;
  privateAppToken: string;
  oauthAccessToken: string;
  oauthRefreshToken: string;
  /** The demo user (card views and actions name the viewing user). */
  userId: number;
  userEmail: string;
  userPassword: string;
  storeId: string;
  /** Ada Lovelace: timeline events and the CRM card. */
  contactId: number;
  /** A shipped order synced by the ecommerce bridge, with line items and a shipment timeline. */
  dealId: number;
  /** The order in checkout_pending for two days: the abandonment cron moves it. */
  pendingDealId: number;
  cardTypeId: number;
  blogPath: string;
  smtpUserName: string;
  smtpPassword: string;
}

export interface SeedOptions {
  baseUrl: string;
  adminToken: string;
  /** Where the demo integrator listens (integrator.mjs); the card and the timeline iframe point there. */
  integratorUrl: string;
  /** Defaults to demo@example.com; tests seeding several accounts into one database pass their own. */
  userEmail?: string;
  log?: (line: string) => void;
  /** Called with the demo app's client secret as soon as the app exists (the integrator verifies with it). */
  onSecret?: (secret: string) => void;
  now?: number;
  syncTimeoutMs?: number;
  /** Requests per 10 s for the demo's tokens (default 110); the docs examples test raises it. */
  rateLimit?: number;
}

export const DEMO_PASSWORD: string;
export const STORE_ID: string;
export function call(baseUrl: string, method: string, path: string, token: string, body?: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers are read loosely
export function seedDemo(o: SeedOptions): Promise<Demo>;
export function demoExists(baseUrl: string, demo: Demo): Promise<boolean>;
export function refreshAccessToken(baseUrl: string, demo: Demo): Promise<Demo>;
export function pointCardAt(baseUrl: string, demo: Demo, integratorUrl: string): Promise<void>;
export function demoEnv(baseUrl: string, demo: Demo, adminToken: string): Record<string, string>;
export function summary(baseUrl: string, demo: Demo, o: { adminToken: string; demoFile: string; logFile?: string; integratorUrl: string; pendingAbandoned?: boolean; smtp?: { host: string; port: number } }): string;
