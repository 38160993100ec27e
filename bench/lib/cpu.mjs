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

/** CPU ticks (user + system) of process `pid`, or null when it is gone. */
function ticksOf(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * CPU ticks of the workerd children, or of those in `pids` only; null when there are none. Given pids, it
 * reads their own files rather than scanning /proc, so a snapshot is cheap enough to take around every
 * wave of requests (figure 3 at c=10).
 */
function workerdTicks(pids) {
  if (pids) {
    const ticks = pids.map(ticksOf).filter((t) => t !== null);
    return ticks.length ? ticks.reduce((t, x) => t + x, 0) : null;
  }
  const mine = workerdChildren();
  return mine.length ? mine.reduce((t, c) => t + c.ticks, 0) : null;
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
