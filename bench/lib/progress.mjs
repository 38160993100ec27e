/**
 * Progress on stderr: on a terminal one status line is rewritten in place; elsewhere (CI logs) each step
 * prints one line and the in-place updates are skipped, so logs stay short.
 */
const tty = process.stderr.isTTY;
let current = "";
let lastDraw = 0;
const started = performance.now();

const stamp = () => `[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s]`;

function clear() {
  if (tty && current) process.stderr.write("\r\x1b[2K");
}

/** A new step: always printed. */
export function step(text) {
  clear();
  current = "";
  process.stderr.write(`${stamp()} ${text}\n`);
}

/** Transient detail of the current step (terminal only, at most ~10 redraws per second). */
export function status(text, force = false) {
  if (!tty) return;
  const now = performance.now();
  if (!force && now - lastDraw < 100) return;
  lastDraw = now;
  clear();
  current = `${stamp()}   ${text}`;
  process.stderr.write(current.slice(0, (process.stderr.columns ?? 120) - 1));
}

export function done() {
  clear();
  current = "";
}
