/**
 * @module The shard hint in a token (docs/reference/accounts.md "Token format"). As the real service's
 * `pat-na1-…` names the region holding the account, a private-app token (`pat-na1-s2-…`) and an OAuth access
 * token (`oat-s2-…`) name the shard that held the account when the token was issued: `s<n>` for `SHARD_<n>`,
 * `s0` for the control-plane database. The hint is part of the secret (the hash covers it), so it cannot be
 * changed without making another, unknown token; and it is never read for authorisation or routing: the
 * credential's own row names the account, and the directory read in the same statement names its shard.
 * Tokens issued without it (`pat-na1-<random>`, `oat-<random>`) carry none and work as before.
 */

const HINTED = /^(pat-na1-|oat-)s(\d{1,4})-/;

/** The hint segment for an account's shard (null = the control plane, `s0`). */
export function shardHint(shard: string | null): string {
  const m = shard === null ? null : /^SHARD_(\d{1,4})$/.exec(shard);
  return `s${m ? Number(m[1]) : 0}`;
}

/** The shard a token's hint names, or undefined when it carries none (an older token). */
export function hintedShard(token: string): string | null | undefined {
  const m = HINTED.exec(token);
  if (!m) return undefined;
  const n = Number(m[2]);
  return n === 0 ? null : `SHARD_${n}`;
}
