/**
 * CPU time of this process and of its workerd children (Linux /proc; 10 ms ticks): what a pass cost the
 * machine, which is steadier than its wall time on shared cores. Elsewhere `workerdMs` is null.
 */
import fs from "node:fs";

const TICK_MS = 10;

function workerdTicks() {
  let ticks = 0;
  let found = false;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid ...": comm may hold spaces, so split after its closing parenthesis.
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (comm !== "workerd" || Number(fields[1]) !== process.pid) continue;
    found = true;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return found ? ticks : null;
}

/** A snapshot; `cpuSince(snapshot)` answers the CPU milliseconds spent since. */
export function cpuNow() {
  const w = fs.existsSync("/proc/self/stat") ? workerdTicks() : null;
  return { workerd: w, node: process.cpuUsage() };
}

export function cpuSince(before) {
  const now = cpuNow();
  const node = process.cpuUsage(before.node);
  return {
    workerdMs: now.workerd === null || before.workerd === null ? null : (now.workerd - before.workerd) * TICK_MS,
    nodeMs: Math.round((node.user + node.system) / 1000),
  };
}
