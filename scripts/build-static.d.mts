/** Types of scripts/build-static.mjs for the tests that call it (test/node/static-files.test.ts). */
export function buildStatic(options?: { publicDir?: string; outFile?: string; libImport?: string }): string[];
