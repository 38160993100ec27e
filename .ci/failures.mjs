#!/usr/bin/env node
// Names every failed test of vitest JSON reports, with the first lines of its error, and every file that
// failed outside its tests (a hook, an import). Printed last, so that a red run's log names its failures in
// its final lines even when only the tail of the log is kept. Usage: node .ci/failures.mjs report.json ...
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";

const LINES = 6;
const first = (messages) =>
  String(messages?.[0] ?? "")
    .split("\n")
    .filter((line) => line.trim())
    .slice(0, LINES)
    .map((line) => `      ${line.slice(0, 300)}`)
    .join("\n");

let count = 0;
for (const report of process.argv.slice(2)) {
  if (!existsSync(report)) {
    console.log(`  ${report}: no report (the run ended before writing it)`);
    count++;
    continue;
  }
  for (const file of JSON.parse(readFileSync(report, "utf8")).testResults ?? []) {
    const name = relative(process.cwd(), file.name);
    const failed = (file.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const test of failed) {
      count++;
      console.log(`  ${name} > ${test.fullName ?? test.title}\n${first(test.failureMessages)}`);
    }
    if (file.status === "failed" && failed.length === 0) {
      count++;
      console.log(`  ${name} (the file failed outside its tests)\n${first([file.message])}`);
    }
  }
}
if (count === 0) console.log("  none");
