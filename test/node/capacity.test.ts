/**
 * The capacity model (`npm run capacity`, scripts/capacity.mjs): its tables are consistent for a few numbers of
 * accounts (shards, the ceiling that binds first and where it changes, costs), every figure it uses names its
 * source, the command line answers, and docs/explanation/scaling.md shows exactly the table the script prints.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { DOC_ACCOUNTS, DOC_FILE, docBlock, docBlockIn, FIGURES_FILE, loadFigures, model, summaryTable } from "../../scripts/capacity.mjs";

const figures = loadFigures();
const byId = (r: ReturnType<typeof model>, id: string) => r.ceilings.find((c) => c.id === id)!;

describe("the capacity model", () => {
  it("names a source for every figure, and a page and address for every published one", () => {
    for (const [group, entries] of Object.entries(figures.raw)) {
      if (group === "about") continue;
      for (const [name, f] of Object.entries(entries)) {
        expect(typeof f.value, `${group}.${name}`).toBe("number");
        expect(f.source.length, `${group}.${name}`).toBeGreaterThan(10);
        if (group === "limits" || group === "prices") expect(f.url, `${group}.${name}`).toMatch(/^https:\/\/developers\.cloudflare\.com\//);
      }
    }
  });

  it("adds shards as accounts grow, each within its planned share of query time and storage", () => {
    let shards = 0;
    for (const n of [1_000, 5_000, 50_000, 500_000, 5_000_000]) {
      const r = model(figures, n);
      expect(r.shards).toBe(Math.max(1, Math.ceil(n / r.perShard)));
      expect(r.shards).toBeGreaterThan(shards);
      shards = r.shards;
      expect(byId(r, "shard-queries").use).toBeLessThanOrEqual(figures.assumed.plannedShare!);
      expect(byId(r, "shard-storage").use).toBeLessThanOrEqual(figures.assumed.plannedShare!);
    }
    // A larger account fills a shard by storage before query time.
    expect(model(figures, 10_000, { contacts: 1_000_000 }).shardLimitedBy).toBe("storage");
  });

  it("changes the ceiling that binds first where the next one is reached", () => {
    const storage = byId(model(figures, 1_000), "account-storage").reachedAt!;
    // Below the account's storage, one shard's query time binds (placement keeps it under 70 %); past it, storage.
    expect(model(figures, 1_000).binding.id).toBe("shard-queries");
    expect(model(figures, Math.floor(storage / 2)).binding.id).toBe("shard-queries");
    expect(byId(model(figures, storage), "account-storage").use).toBeLessThanOrEqual(1);
    expect(byId(model(figures, storage + 1_000), "account-storage").use).toBeGreaterThan(1);
    expect(model(figures, storage + 1_000).binding.id).toBe("account-storage");
    // Small accounts move storage out of the way: the control plane's credential reads bind next, at
    // 1,000 queries/s over one read per account per 1,000 s, so at 1,000,000 accounts exactly.
    const small = { contacts: 100 };
    const controlAt = byId(model(figures, 1_000, small), "control-plane").reachedAt!;
    expect(controlAt).toBe(1_000_000);
    // It binds first once its use passes the fullest shard's (at most 70 %): at 700,000 accounts.
    expect(model(figures, 500_000, small).binding.id).toBe("shard-queries");
    expect(model(figures, 800_000, small).binding.id).toBe("control-plane");
    expect(model(figures, 2_000_000, small).binding.id).toBe("control-plane");
    // Reads that miss the credential cache less often move it out too; then the Worker's ~5,000 bindings bind.
    const rare = { contacts: 100, credentialMiss: 1_000_000 };
    const bindingsAt = byId(model(figures, 1_000, rare), "bindings").reachedAt!;
    expect(model(figures, bindingsAt, rare).shards).toBe(figures.limits.bindingsPerWorker! - 1);
    expect(model(figures, bindingsAt + 10_000, rare).binding.id).toBe("bindings");
    expect(model(figures, bindingsAt + 10_000, rare).workers).toBe(2);
  });

  it("costs more with more accounts, the total the sum of its parts, and nothing past the plan for a small deployment", () => {
    let last = 0;
    for (const n of DOC_ACCOUNTS) {
      const { cost } = model(figures, n);
      expect(cost.total).toBeCloseTo(cost.workers + cost.d1 + cost.queues + cost.durableObjects, 6);
      expect(cost.total).toBeGreaterThan(last);
      last = cost.total;
    }
    const idle = model(figures, 1, { rps: 0.001, messages: 1, contacts: 10 });
    expect(idle.cost.total).toBe(figures.prices.workersBaseUsdPerMonth!);
  });

  it("prints its tables from the command line and refuses a bad flag", () => {
    const out = execFileSync(process.execPath, ["scripts/capacity.mjs", "--accounts", "1000,1000000", "--rps", "0.5"], { encoding: "utf8" });
    expect(out.split("\n")[0]).toBe(summaryTable([]).split("\n")[0]);
    expect(out).toContain("| 1,000,000 |");
    expect(out).toContain("0.5 requests/s");
    const bad = spawnSync(process.execPath, ["scripts/capacity.mjs", "--accounts", "-3"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--accounts takes a positive number");
    expect(fs.existsSync(FIGURES_FILE)).toBe(true);
  });

  it("docs/explanation/scaling.md shows the table the script prints (npm run capacity -- --doc rewrites it)", () => {
    const shown = docBlockIn(fs.readFileSync(DOC_FILE, "utf8"));
    expect(shown, "the capacity table's markers in scaling.md").not.toBeNull();
    expect(shown).toBe(docBlock(figures));
  });
});
