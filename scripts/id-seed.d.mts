/** Types of scripts/id-seed.mjs for the tests that import it. */
export const ID_TABLES: Record<string, string>;
export const ID_RANGE: number;
export function seedStatements(base: number): string[];
export function seedSql(base: number): string;
