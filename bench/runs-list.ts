// The runs list at scale: 100,000 runs in a throwaway database (SQLite, and Postgres when reachable),
// then the latency of the list queries the console makes (lib/queries/run-list.ts).
//   npx tsx bench/runs-list.ts            (BENCH_RUNS=100000, BENCH_REPEAT=7)
// Rows are bulk-inserted (createMany in batches); each query is run BENCH_REPEAT times and the median
// and the worst are printed. The first run of each query is included (no warm-up hidden).
import { createDb, type Db } from "../lib/db";
import { findRunList, type RunListFilter } from "../lib/queries/run-list";
import { initialState } from "../lib/runtime/state";
import { onEachDatabase } from "./support/databases";

const RUNS = Number(process.env.BENCH_RUNS ?? 100_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 7);
const BATCH = 2_000;
const AGENTS = ["refund-agent", "deploy-agent", "outreach-agent"];
// Mostly finished runs, a few parked ones: what a long-lived installation looks like.
const STATUS_MIX: Array<[string, number]> = [
  ["COMPLETED", 0.86],
  ["FAILED", 0.08],
  ["CANCELLED", 0.03],
  ["WAITING_APPROVAL", 0.01],
  ["NEEDS_ATTENTION", 0.005],
  ["RUNNING", 0.015],
];
const REASONS = ["late delivery", "damaged item", "wrong size", "never arrived", "charged twice"];

function statusOf(i: number): string {
  let x = ((i * 7919) % 1000) / 1000;
  for (const [status, share] of STATUS_MIX) {
    if (x < share) return status;
    x -= share;
  }
  return "COMPLETED";
}

async function seed(db: Db) {
  const start = Date.parse("2025-01-01T00:00:00Z");
  const state = (slug: string, step: number) =>
    JSON.stringify({
      ...initialState({
        agent: { slug, version: "1", instructionsHash: "0".repeat(64) },
        instructions: "Refund the order if it qualifies.",
        input: null,
      }),
      step,
    });
  const t0 = performance.now();
  for (let offset = 0; offset < RUNS; offset += BATCH) {
    const data = Array.from({ length: Math.min(BATCH, RUNS - offset) }, (_, j) => {
      const i = offset + j;
      const slug = AGENTS[i % AGENTS.length];
      const at = new Date(start + i * 30_000); // one run every 30 s: ~35 days of history
      const input = {
        orderId: `ord_${String(i).padStart(6, "0")}`,
        reason: i === Math.floor(RUNS / 3) ? "needle: customer moved to Reykjavik" : REASONS[i % REASONS.length],
      };
      return {
        id: `run_${i.toString(36).padStart(8, "0")}${"x".repeat(24)}`,
        agentSlug: slug,
        agentVersion: "1",
        status: statusOf(i),
        input: JSON.stringify(input),
        state: state(slug, i % 9),
        stateSeq: 1,
        createdAt: at,
        updatedAt: at,
      };
    });
    await db.run.createMany({ data });
    // The list's step column is the latest checkpoint's (runId, seq = stateSeq): one per run, as the store writes it.
    await db.checkpoint.createMany({
      data: data.map((run, j) => ({
        runId: run.id,
        seq: 1,
        step: (offset + j) % 9,
        state: run.state,
        createdAt: run.createdAt,
      })),
    });
  }
  return performance.now() - t0;
}

async function time(db: Db, filter: RunListFilter) {
  const samples: number[] = [];
  let rows = 0;
  for (let i = 0; i < REPEAT; i++) {
    const t0 = performance.now();
    const page = await findRunList(db, filter);
    samples.push(performance.now() - t0);
    rows = page.runs.length;
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], worst: samples.at(-1)!, rows };
}

async function measure(label: string, url: string) {
  const db = createDb(url);
  const seedMs = await seed(db);
  // The cursor of a deep page: the run 90% of the way down the list, as a person paging that far would hold.
  const deep = await db.run.findFirst({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: Math.floor(RUNS * 0.9),
    select: { id: true, createdAt: true },
  });
  const cases: Array<[string, RunListFilter]> = [
    ["first page (newest 50)", {}],
    ["deep page (cursor at 90%)", { cursor: `${deep!.createdAt.getTime()}.${deep!.id}` }],
    ["status = FAILED", { status: "FAILED" }],
    ["status = WAITING_APPROVAL (1%)", { status: "WAITING_APPROVAL" }],
    ["agent = deploy-agent + status = FAILED", { agent: "deploy-agent", status: "FAILED" }],
    ["search run id, exact", { q: `run_${(RUNS >> 1).toString(36).padStart(8, "0")}${"x".repeat(24)}` }],
    ["search run id prefix (1,296 ids)", { q: "run_000012" }],
    ["search input text (1 match)", { q: "Reykjavik" }],
    ["search input text, 2nd page", { q: "charged twice", cursor: `${deep!.createdAt.getTime()}.${deep!.id}` }],
  ];
  console.log(`\n${label}: ${RUNS.toLocaleString("en")} runs inserted in ${(seedMs / 1000).toFixed(1)} s`);
  await printCases(db, cases);
  if (label.startsWith("SQLite")) {
    // Without statistics SQLite takes the (status, …) index for a status filter and sorts every match; with
    // them (ANALYZE, or PRAGMA optimize at set-up) it walks the createdAt index and stops after a page.
    await db.$executeRawUnsafe("ANALYZE");
    console.log("\nSQLite after ANALYZE:");
    await printCases(
      db,
      cases.filter(([name]) => name.includes("status") || name.startsWith("deep")),
    );
  }
  await db.$disconnect();
}

async function printCases(db: Db, cases: Array<[string, RunListFilter]>) {
  console.log(`${"query".padEnd(42)} ${"median ms".padStart(10)} ${"worst ms".padStart(9)} ${"rows".padStart(5)}`);
  for (const [name, filter] of cases) {
    const r = await time(db, filter);
    console.log(
      `${name.padEnd(42)} ${r.median.toFixed(1).padStart(10)} ${r.worst.toFixed(1).padStart(9)} ${String(r.rows).padStart(5)}`,
    );
  }
}

onEachDatabase(measure).catch((error) => {
  console.error(error);
  process.exit(1);
});
