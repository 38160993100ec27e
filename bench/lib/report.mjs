/** The printed table, bench/results.json and the hand-written SVG chart of the ratios (bench/ratios.svg). */
import fs from "node:fs";

const n = (v, d = 0) => (v === null || v === undefined || Number.isNaN(v) ? "–" : Number(v).toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }));
const ms = (v) => `${n(v, v < 10 ? 2 : 1)} ms`;
const lat = (x) => `p50 ${ms(x.p50)} / p99 ${ms(x.p99)}`;
/** Three digits where two would round a missed target up to it (0.346 against 0.35), else two. */
const ratioDigits = (ratio, target, met) => (target !== undefined && met === false && Number(ratio.toFixed(2)) >= target ? 3 : 2);
/** A read's rate; at c=1 it is taken from the median latency, and the mean's rate is given beside it. */
const rate = (x) => (Number.isFinite(x.meanRps) ? `${n(x.rps)} req/s at the median latency (${n(x.meanRps)} at the mean)` : `${n(x.rps)} req/s`);

/** One printable row per result: what was measured, the baseline beside it, their ratio, the target. */
export function rows(results) {
  const out = [];
  for (const r of results) {
    const id = r.id.replace(/^sharded_/, ""); // the sharded configuration's figures print like the main ones
    let value;
    let base;
    const digits = ratioDigits(r.ratio, r.target?.ratio, r.met);
    let ratio = r.ratio === undefined ? "" : `${n(r.ratio, digits)}`;
    let target = "";
    if (id.startsWith("ingest")) {
      value = `${n(r.value.rps, 1)} req/s (${n(r.messagesPerSecond)} msg/s), ${lat(r.value)}`;
      base = `${n(r.baseline.rps, 1)} req/s, ${lat(r.baseline)}`;
    } else if (id === "sync_e2e") {
      value = `${n(r.value.messagesPerSecond)} msg/s (${n(r.value.ms / 1000, 2)} s)`;
      base = `${n(r.baseline.messagesPerSecond)} msg/s (${n(r.baseline.ms / 1000, 2)} s)`;
      target = `ratio ≥ ${r.target.ratio}`;
    } else if (id === "sync_e2e_webhooks") {
      value = `${n(r.value.messagesPerSecond)} msg/s (${n(r.value.ms / 1000, 2)} s); ${n(r.value.events)} events in ${n(r.value.posts)} POSTs${r.value.deliveredAfterMs === undefined ? "" : `, all of a pass's arrived ${n(r.value.deliveredAfterMs / 1000, 2)} s after its sync settled`}`;
      base = `${n(r.baseline.messagesPerSecond)} msg/s (${n(r.baseline.ms / 1000, 2)} s)`;
      target = "ratio ≥ 0.9";
    } else if (id.startsWith("read_floor")) {
      const v = r.value;
      value = `${n(v.rps)} req/s as a route behind the production front (own ${ms(v.ownMs)}/request; measured ${n(v.measuredRps)} req/s on the bench Worker, whose no-op did ${n(v.benchNoopRps)}${v.postOverGetMs === undefined ? "" : `; plus ${ms(v.postOverGetMs)} that a POST of its body costs the front over a GET`})`;
      base = `${n(r.baseline.rps)} req/s, ${lat(r.baseline)}`;
    } else if (id.startsWith("read_cpu_")) {
      value = `${n(r.value.workerdUs)} µs of workerd CPU per request`;
      base = `${n(r.baseline.workerdUs)} µs`;
    } else if (id.startsWith("read_")) {
      value = `${rate(r.value)}, ${lat(r.value)}`;
      base = `${rate(r.baseline)}${r.baseline.p50 === undefined ? "" : `, ${lat(r.baseline)}`}`;
      if (r.target) target = `ratio ≥ ${r.target.ratio}`;
    } else if (id.startsWith("d1_")) {
      value = `${r.statements} statements in ${r.roundTrips} round trips, ${r.rowsRead} rows read, ${r.rowsReturned} rows returned (${r.itemsReturned} items)`;
      base = "";
      ratio = "";
      target = `rows read ${r.target.rowsRead}`;
    } else if (id === "sync_rows_read") {
      value = `${n(r.value.fresh, 1)} rows (new objects, ${n(r.value.statementsFresh)} statements per batch), ${n(r.value.update, 1)} rows (updates, ${n(r.value.statementsUpdate)} statements)`;
      base = `${n(r.baseline.rowsRead, 1)} rows`;
      ratio = "";
      target = `≤ ${r.target.rowsRead} rows per message`;
    } else if (id === "cards_view") {
      value = lat(r.value);
      base = lat(r.baseline);
      target = "p50 ≤ 130 ms";
    } else if (id === "cron_sweep") {
      const v = r.value;
      value = `${ms(v.msPerRun)}/run tick to last ack (tick ${ms(v.tickMsPerRun)}, ${n(v.tickStatements)} D1 statements, ${n(v.messagesPerTick)} messages; consumer ${ms(v.consumerMsPerRun)}), ${n(v.movedPerRun)} deals moved, ${n(v.rowsReadPerRun)} rows read, ${n(v.rowsWrittenPerRun)} written; ${n(v.runsToClearBacklog)} runs for the backlog`;
      base = `${n(r.baseline.ms / 1000)} s bound`;
    } else if (id === "testkit_fixture_10k") {
      const v = r.value;
      value = `${ms(v.msMedian)} median (first ${ms(v.msFirst)}, slowest ${ms(v.msMax)}), ${n(v.bytes / 2 ** 20, 1)} MB`;
      base = `${n(r.baseline.ms / 1000)} s`;
      target = "median ≤ 5 s";
    } else if (id === "testkit_restore_1000") {
      const v = r.value;
      value = `p50 ${ms(v.msP50)} / p95 ${ms(v.msP95)} (slowest ${ms(v.msMax)}), ${n(v.rows)} rows`;
      base = `p50 ${ms(r.baseline.msP50)} / p95 ${ms(r.baseline.msP95)}`;
      target = `p95 ≤ ${r.target.p95Ms} ms, floor ÷ restore ≥ ${r.target.floorRatio}`;
    } else if (id.startsWith("testkit_cost_")) {
      const v = r.value;
      value = `median ratio ${n(v.ratio, 3)}, 95 % interval ${n(v.interval[0], 3)}–${n(v.interval[1], 3)} (${v.pairs} samples); with the kit ${n(v.withKit, 1)} req/s`;
      base = `${n(r.baseline.withoutKit, 1)} req/s; A/A control median ${n(r.aa.ratio, 3)}`;
      target = "interval overlaps the A/A control's";
    } else if (id.startsWith("growth_")) {
      const v = r.value;
      const d1 = (x) => `${x.statements} statements, ${n(x.rowsRead)} rows read for ${n(x.rowsReturned)} returned`;
      value = `median ratio ${n(v.ratio, 3)}, 95 % interval ${n(v.interval[0], 3)}–${n(v.interval[1], 3)} (${v.pairs} samples); ${n(v.rps, 1)} req/s; D1: ${d1(v.d1)}; ${n(r.bytesPerContact.large)} bytes stored per contact`;
      base = `${n(r.baseline.rps, 1)} req/s; D1: ${d1(r.baseline.d1)}; A/A control median ${n(r.aa.ratio, 3)}`;
      target = `median ≥ ${r.target.ratio}`;
    } else if (id === "bundle_size") {
      value = `${n(r.value.gzipKiB, 1)} KiB gzip (${n(r.value.uploadKiB, 1)} KiB raw)`;
      base = `${n(r.baseline.gzipKiB)} KiB free-plan limit`;
    } else if (id === "startup") {
      value = `${ms(r.value.totalMs)} (first request ${ms(r.value.firstRequestMs)}); the code's share ${ms(r.value.scriptCostMs)} of the 1 s limit`;
      base = `${ms(r.baseline.totalMs)} (first request ${ms(r.baseline.firstRequestMs)})`;
    } else if (id.startsWith("regression_fine_")) {
      const v = r.value;
      value = `median ratio ${n(v.ratio, 3)}, 95 % interval ${n(v.interval[0], 3)}–${n(v.interval[1], 3)} (${v.pairs} pairs; 10th–90th percentile of the pairs ${n(v.spread[0], 2)}–${n(v.spread[1], 2)}); sharded ${n(v.sharded, 1)}`;
      base = `${n(r.baseline.single, 1)}`;
      target = `interval low ≥ ${r.target.intervalLow}`;
    } else if (id.startsWith("regression_")) {
      const unit = { messagesPerSecond: "msg/s", rps: "req/s", p50: "ms p50" }[r.value.metric];
      value = `${n(r.value.sharded, 1)} ${unit}; paired ratios of the runs ${r.value.pairedRatios.map((x) => n(x, 2)).join(", ")}`;
      base = `${n(r.baseline.single, 1)} ${unit}`;
      target = "sharded ÷ single ≥ 0.95";
    } else if (id === "scaleout_sync") {
      value = `${n(r.value.messagesPerSecond)} msg/s (${n(r.value.ms / 1000, 2)} s)`;
      base = `${n(r.baseline.messagesPerSecond)} msg/s (${n(r.baseline.ms / 1000, 2)} s)`;
    } else if (id === "scaleout_reads") {
      value = `${n(r.value.rps)} req/s`;
      base = `${n(r.baseline.rps)} req/s`;
    } else if (id === "probe_parallel_d1") {
      value = `${ms(r.value.wallMs)} wall`;
      base = `${ms(r.baseline.wallMs)} wall`;
    } else if (id === "fence_cost") {
      value = `insert ${n(r.value.insertUs)} µs, update ${n(r.value.updateUs)} µs per row`;
      base = `insert ${n(r.baseline.insertUs)} µs, update ${n(r.baseline.updateUs)} µs per row`;
    } else if (id === "soak") {
      const v = r.value;
      value = `${n(v.messagesSent)} msgs, PUT ${n(v.putRps, 1)}/s ${ms(v.putP50)}/${ms(v.putP99)}, reads ${n(v.readRps)}/s ${ms(v.readP50)}/${ms(v.readP99)}, 5xx ${v.writes5xx + v.reads5xx}, lost ${v.lostOrWrongObjects}, drained in ${v.drainMs === null ? "never" : ms(v.drainMs)}`;
      base = `drain ≤ ${ms(r.baseline.drainMs)}`;
      target = "0 5xx, 0 lost, drain ≤ 2 × max_batch_timeout";
    }
    // A ratio with a target shows its A/A control: the band a ratio between two equal things spanned.
    if (r.aa?.band && ratio) ratio = `${ratio} (A/A ${n(r.aa.band[0], 2)}–${n(r.aa.band[1], 2)})`;
    out.push({ figure: r.figure, value, baseline: r.baseline?.name ? `${base} [${r.baseline.name}]` : base, ratio, target, met: r.met === undefined ? "" : r.met ? "yes" : "NO" });
  }
  return out;
}

export function printTable(results) {
  const table = rows(results);
  const cols = ["figure", "value", "baseline", "ratio", "target", "met"];
  const width = Object.fromEntries(cols.map((c) => [c, Math.max(c.length, ...table.map((r) => String(r[c]).length))]));
  const line = (r) => cols.map((c) => String(r[c]).padEnd(width[c])).join(" │ ");
  console.log(line(Object.fromEntries(cols.map((c) => [c, c]))));
  console.log(cols.map((c) => "─".repeat(width[c])).join("─┼─"));
  for (const r of table) console.log(line(r));
}

/** Markdown version of the table, for bench/README.md. */
export function markdownTable(results) {
  const table = rows(results);
  const esc = (s) => String(s).replace(/\|/g, "\\|");
  return ["| figure | value | baseline | ratio | target | met |", "|---|---|---|---|---|---|", ...table.map((r) => `| ${[r.figure, r.value, r.baseline, r.ratio, r.target, r.met].map(esc).join(" | ")} |`)].join("\n");
}

export function writeJson(file, data) {
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
}

const xml = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * Horizontal bars, one per comparison: the service's figure divided by its baseline (1.0 = as fast as the
 * raw primitive). A tick marks the target where there is one. Linear axis 0–1.2; longer bars are clipped
 * and labelled with their value.
 */
export function ratiosSvg(results, meta) {
  const bars = [];
  for (const r of results) {
    if (r.id.startsWith("ingest")) bars.push({ label: r.figure.replace("Sync ingest, 200 msgs/request", "Sync ingest"), ratio: r.ratio, note: "req/s vs raw sendBatch" });
    else if (r.id === "sync_e2e") bars.push({ label: "Sync end to end", ratio: r.ratio, target: r.target.ratio, note: "msg/s vs raw db.batch", met: r.met, aa: r.aa });
    else if (r.id === "sync_e2e_webhooks") bars.push({ label: "Sync with webhooks", ratio: r.ratio, target: 0.9, note: "msg/s vs no webhooks", met: r.met, aa: r.aa });
    else if (r.id.startsWith("read_vsfloor_")) bars.push({ label: r.figure.replace("Read vs its floor: ", ""), ratio: r.ratio, target: r.target.ratio, note: "req/s vs its floor", met: r.met, aa: r.aa });
    else if (r.id.startsWith("read_") && !r.id.startsWith("read_cpu_")) bars.push({ label: r.figure.replace("Read: ", "").replace(/, raw( JSON)? \(bench Worker\)/, "").replace("the list's D1 query (101 rows)", "the list's D1 query"), ratio: r.ratio, target: r.target?.ratio, note: "req/s vs /healthz", met: r.met, aa: r.aa });
    else if (r.id.startsWith("regression_fine_")) {
      const name = r.figure.replace(/^Sharded vs single database, \d+ interleaved samples: /, "").replace(/, count=100|, \d+ msgs over \d+ objects| \((req|msg)\/s\)| \(p50 ms\)/g, "");
      bars.push({ label: `sharded ÷ single, samples: ${name}`, ratio: r.ratio, target: 0.95, note: `interval ${r.value.interval.map((v) => v.toFixed(3)).join("–")}`, met: r.met });
    } else if (r.id.startsWith("regression_")) bars.push({ label: `sharded ÷ single: ${r.figure.replace("Sharded vs single database: ", "").replace(/^Read: /, "").replace(/, count=100|, \d+ msgs over \d+ objects|, integrator \d+ ms|, 200 msgs\/request/g, "")}`, ratio: r.ratio, target: 0.95, note: "paired runs", met: r.met });
    else if (r.id.startsWith("scaleout_")) bars.push({ label: r.id === "scaleout_sync" ? "Scale-out sync, 4 shards ÷ 1" : "Scale-out reads, 4 shards ÷ 1", ratio: r.ratio, note: "aggregate throughput" });
    else if (r.id === "cards_view") bars.push({ label: "Record view, 5 cards", ratio: r.ratio, target: r.baseline.p50 / 130, note: "integrator p50 / view p50", met: r.met });
    else if (r.id === "testkit_restore_1000") bars.push({ label: "Test kit restore, 1,000 records", ratio: r.ratio, target: r.target.floorRatio, note: `floor p50 / restore p50; p95 ${r.value.msP95.toFixed(0)} ms`, met: r.met });
    else if (r.id.startsWith("testkit_cost_")) {
      const name = r.figure.replace(/^.*interleaved samples: /, "").replace(/ \(req\/s\)$/, "").replace(/, (limit|count)=100/, "");
      bars.push({ label: `STANDARD with ÷ without the kit: ${name}`, ratio: r.ratio, note: `interval ${r.value.interval.map((v) => v.toFixed(2)).join("–")}, A/A ${r.aa.interval.map((v) => v.toFixed(2)).join("–")}`, met: r.met });
    }
  }
  // Wide enough for the longest label and note (about 6.6 px per character at 12 px), so none is clipped.
  const textWidth = (t) => Math.ceil(String(t).length * 6.6);
  const left = Math.max(200, ...bars.map((b) => textWidth(b.label) + 24));
  const plot = 460;
  const rowH = 30;
  const top = 58;
  const height = top + bars.length * rowH + 60;
  const width = left + plot + 56 + Math.max(120, ...bars.map((b) => textWidth(b.note))) + 16;
  const max = 1.2;
  const x = (v) => Math.round((left + (Math.min(v, max) / max) * plot) * 10) / 10;
  const parts = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`);
  parts.push(`<rect width="100%" height="100%" fill="#fff"/>`);
  parts.push(`<text x="16" y="24" font-size="15" font-weight="bold">crm-edge bench: service ÷ baseline (1.0 = as fast as the raw primitive)</text>`);
  parts.push(`<text x="16" y="42" fill="#555">${xml(meta)}</text>`);
  for (let t = 0; t <= max + 1e-9; t += 0.2) {
    const tx = x(t);
    parts.push(`<line x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${top + bars.length * rowH}" stroke="#e3e3e3"/>`);
    parts.push(`<text x="${tx}" y="${top + bars.length * rowH + 16}" text-anchor="middle" fill="#555">${t.toFixed(1)}</text>`);
  }
  parts.push(`<line x1="${x(1)}" y1="${top - 6}" x2="${x(1)}" y2="${top + bars.length * rowH}" stroke="#999" stroke-dasharray="4 3"/>`);
  bars.forEach((b, i) => {
    const y = top + i * rowH;
    // Red only for a missed target; a bar past 1.0 is good news and keeps its colour.
    // Amber: the ratio itself meets its target, but what decides (an interval's low end) does not.
    const color = b.met === false ? (b.target !== undefined && b.ratio >= b.target ? "#e0a030" : "#d9534f") : b.target !== undefined ? "#3c8d5a" : "#4a78b5";
    parts.push(`<text x="${left - 8}" y="${y + 17}" text-anchor="end">${xml(b.label)}</text>`);
    parts.push(`<rect x="${left}" y="${y + 5}" width="${Math.max(1, Math.round((x(b.ratio) - left) * 10) / 10)}" height="${rowH - 12}" fill="${color}" rx="2"/>`);
    if (b.aa) {
      // The A/A band carried onto this ratio: how far noise alone moves it.
      const [lo, hi] = b.aa.band.map((q) => x(b.ratio * q));
      parts.push(`<line x1="${lo}" y1="${y + rowH / 2 - 1}" x2="${hi}" y2="${y + rowH / 2 - 1}" stroke="#222" stroke-width="1.5"/>`);
      parts.push(`<line x1="${lo}" y1="${y + 9}" x2="${lo}" y2="${y + rowH - 11}" stroke="#222" stroke-width="1.5"/>`);
      parts.push(`<line x1="${hi}" y1="${y + 9}" x2="${hi}" y2="${y + rowH - 11}" stroke="#222" stroke-width="1.5"/>`);
    }
    if (b.target !== undefined) {
      const tx = x(b.target);
      parts.push(`<line x1="${tx}" y1="${y + 1}" x2="${tx}" y2="${y + rowH - 3}" stroke="#111" stroke-width="2"/>`);
    }
    // After the tick and with a white halo: a value just short of its target is written across the tick.
    parts.push(
      `<text x="${x(Math.max(b.ratio, b.aa ? b.ratio * b.aa.band[1] : 0)) + 6}" y="${y + 17}" stroke="#fff" stroke-width="3" paint-order="stroke">${b.ratio.toFixed(b.target === 0.95 ? 3 : ratioDigits(b.ratio, b.target, b.met))}${b.ratio > max ? " ▸" : ""}</text>`,
    );
    parts.push(`<text x="${left + plot + 56}" y="${y + 17}" fill="#666">${xml(b.note)}</text>`);
  });
  parts.push(`<text x="16" y="${height - 26}" fill="#555">Black tick: target. Whiskers: the A/A band (two equal things measured against each other) applied to the ratio.</text>`);
  parts.push(`<text x="16" y="${height - 10}" fill="#555">Red: target missed. Amber: the ratio meets it, its interval does not. Green: met. Blue: no target. Bars past 1.2 are cut (▸).</text>`);
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
