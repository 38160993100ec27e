/** Types of scripts/capacity.mjs for the test that imports it (test/node/capacity.test.ts). */
export const FIGURES_FILE: string;
export const DOC_FILE: string;
export const DOC_ACCOUNTS: number[];

export interface Figures {
  raw: Record<string, Record<string, { value: number; source: string; page?: string; url?: string; flag?: string }>>;
  measured: Record<string, number>;
  assumed: Record<string, number>;
  limits: Record<string, number>;
  prices: Record<string, number>;
}

export interface Traffic {
  rps: number;
  contacts: number;
  messages: number;
  credentialMiss: number;
}

export interface Ceiling {
  id: string;
  name: string;
  limit: string | null;
  use: number;
  reachedAt: number | null;
  lift: string;
}

export interface Model {
  accounts: number;
  traffic: Traffic;
  perShard: number;
  shardLimitedBy: "query time" | "storage";
  shards: number;
  workers: number;
  ceilings: Ceiling[];
  binding: Ceiling;
  use: Record<"workerRequests" | "cpuMs" | "rowsRead" | "rowsWritten" | "storageGb" | "queueOperations" | "doRequests" | "doGbSeconds", number>;
  cost: Record<"workers" | "d1" | "queues" | "durableObjects" | "total", number>;
}

export function loadFigures(file?: string): Figures;
export function trafficOf(figures: Figures, options?: Partial<Traffic>): Traffic;
export function model(figures: Figures, accounts: number, options?: Partial<Traffic>): Model;
export function summaryTable(results: Model[]): string;
export function reachedTable(result: Model): string;
export function sourcesTable(figures: Figures): string;
export function detailTable(result: Model): string;
export function docBlock(figures: Figures): string;
export function docBlockIn(text: string): string | null;
