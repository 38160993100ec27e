/** @module Types of layers.mjs for the TypeScript tests that import it. */
import type { ESLint } from "eslint";
export const LAYERS: string[][];
export function layerOf(srcRelative: string): { rank: number; name: string } | null;
export function importsOf(text: string): string[];
export function graphOf(srcDir: string): Map<string, string[]>;
export function circlesOf(graph: Map<string, string[]>): string[][];
declare const plugin: ESLint.Plugin;
export default plugin;
