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

/** A small seeded PRNG (mulberry32), so a bootstrap interval is the same on every read of the same samples. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Percentile bootstrap interval of the median: `resamples` samples of the same size drawn with
 * replacement; answers the `(1 - level) / 2` and `(1 + level) / 2` percentiles of their medians.
 */
export function bootstrapMedianInterval(values, { level = 0.95, resamples = 5000, seed = 16 } = {}) {
  if (!values.length) return [NaN, NaN];
  const next = prng(seed);
  const medians = [];
  for (let i = 0; i < resamples; i++) medians.push(median(Array.from(values, () => values[Math.floor(next() * values.length)])));
  return [percentile(medians, ((1 - level) / 2) * 100), percentile(medians, ((1 + level) / 2) * 100)];
}

/**
 * An A/A control's band: the lowest and highest of its per-run ratios between two passes of the same thing
 * (1.0 is no difference). A figure's ratio moves by about this much from noise alone.
 */
export function aaBand(ratios) {
  return { ratios, band: [Math.min(...ratios), Math.max(...ratios)] };
}
