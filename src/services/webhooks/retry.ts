/**
 * @module Retry schedule of failed deliveries (docs/reference/webhooks.md "Retries"): up to 10 retries, retry n
 * waiting base × 2^(n−1) seconds with ±25 % jitter. The production base (84 s, wrangler.toml) spreads the
 * ten over about 24 hours (84 × 1023 s ≈ 23.9 h); tests and local development set it low.
 */
export const MAX_RETRIES = 10;
/** Queues delay a message by at most 12 hours. */
export const MAX_QUEUE_DELAY_S = 43_200;
export const DEFAULT_RETRY_BASE_S = 84;

export function retryBaseSeconds(env: { WEBHOOK_RETRY_BASE_SECONDS?: string }): number {
  const n = Number(env.WEBHOOK_RETRY_BASE_SECONDS ?? DEFAULT_RETRY_BASE_S);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_RETRY_BASE_S;
}

/** Delay before retry `n` (1..10), whole seconds, capped at the queue's maximum. */
export function retryDelaySeconds(baseSeconds: number, n: number, random: () => number = Math.random): number {
  const jitter = 0.75 + random() * 0.5;
  return Math.min(MAX_QUEUE_DELAY_S, Math.round(baseSeconds * 2 ** (n - 1) * jitter));
}
