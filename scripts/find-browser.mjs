#!/usr/bin/env node
// @ts-check
/**
 * @module The browser the browser tests drive (test/node/browser.ts) and scripts/install-system-deps.sh
 * looks for: CHROMIUM_PATH when set, else the first Chrome or Chromium on PATH, else one at its usual
 * place (Debian, Fedora, macOS). Run directly, it prints the path, or prints what to install and exits 1.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { pathToFileURL } from "node:url";

/** Executable names on PATH, most specific first. */
export const BROWSER_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"];

const USUAL_PLACES = [
  "/usr/bin/chromium",
  "/usr/lib/chromium/chromium",
  "/snap/bin/chromium",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

/** The one line a missing browser fails the browser tests with. */
export const MISSING_BROWSER =
  "The browser tests need Chrome or Chromium: install one (Debian/Ubuntu: apt-get install chromium; Fedora: dnf install chromium; " +
  "macOS: brew install --cask chromium) or set CHROMIUM_PATH to its executable.";

/** @param {string} file */
function executable(file) {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The browser's executable, or an error message (one line) saying why there is none.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {{ path: string } | { error: string }}
 */
export function findBrowser(env = process.env) {
  if (env.CHROMIUM_PATH) {
    return executable(env.CHROMIUM_PATH)
      ? { path: env.CHROMIUM_PATH }
      : { error: `CHROMIUM_PATH is ${env.CHROMIUM_PATH}, which is not an executable file. Point it at a Chrome or Chromium, or unset it.` };
  }
  const dirs = (env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const name of BROWSER_NAMES) {
    for (const dir of dirs) {
      const file = join(dir, name);
      if (executable(file)) return { path: file };
    }
  }
  const found = USUAL_PLACES.find(executable);
  return found ? { path: found } : { error: MISSING_BROWSER };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const r = findBrowser();
  if ("path" in r) console.log(r.path);
  else {
    console.error(r.error);
    process.exit(1);
  }
}
