/** @module Types of find-browser.mjs for the TypeScript tests that import it. */
export const BROWSER_NAMES: string[];
export const MISSING_BROWSER: string;
export function findBrowser(env?: NodeJS.ProcessEnv): { path: string } | { error: string };
