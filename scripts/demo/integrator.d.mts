/** @module Types of the demo integrator (integrator.mjs) for the TypeScript tests that import it. */
import type { IncomingHttpHeaders } from "node:http";

export const CARD_FETCH_PATH: string;
export const ACTIONS_PATH: string;
export const TIMELINE_PAGE_PATH: string;
export const WEBHOOKS_PATH: string;
export function webhookSettings(integratorUrl: string): { targetUrl: string; throttling: { maxConcurrentRequests: number } };
export const DEMO_SUBSCRIPTIONS: { eventType: string; propertyName?: string }[];
export function describeDelivery(events: { subscriptionType: string; objectId: number; attemptNumber: number; propertyName?: string; propertyValue?: string; mergedObjectIds?: number[] }[]): string;
export function checkSignature(r: { secret: string; method: string; uri: string; body: string; headers: IncomingHttpHeaders; now?: number }): string | null;
export function cardDefinition(integratorUrl: string, appId: number): Record<string, unknown>;
export function startDemoIntegrator(opts: { port?: number; secret: () => string | undefined; log?: (line: string) => void; webhooks?: (line: string) => void }): Promise<{ url: string; close: () => Promise<void> }>;
export function demoOrders(type: string, recordId: number): { id: number; status: string; statusLabel: string; total: string; placed: string; items: number }[];
