/**
 * CPU time of this process and of its workerd children (Linux /proc; 10 ms ticks): what a pass cost the
 * machine, which is steadier than its wall time on shared cores. Elsewhere `workerdMs` is null.
 */
import fs from "node:fs";

const TICK_MS = 10;

/** This process's workerd children: pid and CPU ticks (user + system) of each. */
function workerdChildren() {
  const out = [];
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
    out.push({ pid: Number(pid), ticks: Number(fields[11]) + Number(fields[12]) });
  }
  return out;
}

/** The pids of this process's workerd children (a cluster's are those that appear when it starts). */
export const workerdPids = () => (fs.existsSync("/proc/self/stat") ? workerdChildren().map((c) => c.pid) : []);

/** CPU ticks of the workerd children, or of those in `pids` only; null when there are none. */
function workerdTicks(pids) {
  const mine = workerdChildren().filter((c) => !pids || pids.includes(c.pid));
  return mine.length ? mine.reduce((t, c) => t + c.ticks, 0) : null;
}

/**
 * Waits until the workerd processes in `pids` have used no CPU for `quietMs` (at most `maxMs`): the
 * trailing work of one cluster's turn (log lines, usage data points, queue timers) then does not share the
 * cores with the next turn of the other cluster.
 */
export async function settle(pids, quietMs = 30, maxMs = 1000) {
  const end = Date.now() + maxMs;
  let last = workerdTicks(pids);
  if (last === null) return;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = workerdTicks(pids);
    if (now === last) return;
    last = now;
  }
}

/**
 * A snapshot; `cpuSince(snapshot)` answers the CPU milliseconds spent since. With `pids`, only those
 * workerd processes (one cluster's) are counted.
 */
export function cpuNow(pids) {
  const w = fs.existsSync("/proc/self/stat") ? workerdTicks(pids) : null;
  return { workerd: w, node: process.cpuUsage(), pids };
}

export function cpuSince(before) {
  const now = cpuNow(before.pids);
  const node = process.cpuUsage(before.node);
  return {
    workerdMs: now.workerd === null || before.workerd === null ? null : (now.workerd - before.workerd) * TICK_MS,
    nodeMs: Math.round((node.user + node.system) / 1000),
  };
}
