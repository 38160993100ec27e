/** Small statistics helpers: every figure of the bench is a median over runs of these. */

export function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** The median of each numeric field over runs (runs are objects with the same numeric keys). */
export function medianOf(runs, keys) {
  return Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]))]));
}

export const round = (v, digits = 1) => (Number.isFinite(v) ? Number(v.toFixed(digits)) : v);
