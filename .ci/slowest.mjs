#!/usr/bin/env node
// Prints the slowest test files of vitest JSON reports (wall time per file), so that a file that grows slow
// shows up in every CI log. Usage: node .ci/slowest.mjs N report.json [report.json ...]
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";

const [count, ...reports] = process.argv.slice(2);
const files = reports
  .filter((file) => existsSync(file))
  .flatMap((file) => JSON.parse(readFileSync(file, "utf8")).testResults ?? [])
  .map((r) => ({ name: relative(process.cwd(), r.name), seconds: (r.endTime - r.startTime) / 1000, tests: r.assertionResults?.length ?? 0 }))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, Number(count) || 10);
for (const f of files) console.log(`${f.seconds.toFixed(1).padStart(7)} s  ${String(f.tests).padStart(4)} tests  ${f.name}`);
