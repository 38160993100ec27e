/** Types of scripts/migrate-local.mjs for the tests that import it. */
export function localDatabaseIds(toml?: string): Record<string, string>;
export function statementsOf(sql: string): string[];
export function migrationFiles(dir?: string): string[];
export function migrateLocal(options: { bindings: string[]; persistTo?: string }): Promise<void>;
