import { cpus, loadavg, release, totalmem } from "node:os";
import type { Counts } from "./counters";

export type Row = {
  db: string;
  scenario: string;
  runs: number;
  steps: number;
  wallMs: number;
  stepsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Mean over tool-step windows (decision of step k → decision of step k+1): the steady-state step. */
  perStep: Counts;
  /** Everything the drain sent (claims, the final "complete" step, releases) divided by the tool steps. */
  allInPerStep: Counts;
  /** What a run costs outside its tool steps: claim + final commit (+ the empty claim that ends drain). */
  perRunOverhead: Counts;
  /** pg_stat_database.xact_commit delta over the drain / tool steps (Postgres only). */
  xactCommitPerStep: number | null;
  storeCallsPerStep: Record<string, number>;
  /** CPU ms per tool step over the drain: this Node process (bench counters included), the database's backends (null: not readable). */
  cpu: { nodeMs: number; backendMs: number | null };
  /** Several runs in flight at once: step windows overlap, so per-step counts are the all-in ones. */
  overlapping?: boolean;
  /** Its steps are free pure reads, carried to a later commit (lib/runtime/cursor.ts commitRead): a step's
   *  window holds none of its writes, so per-step counts are the all-in ones. */
  carried?: boolean;
};

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export type LatencyStats = { n: number; p50: number; p95: number; max: number };
export const stats = (xs: number[]): LatencyStats => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), max: s.at(-1) ?? NaN };
};

export const meanCounts = (list: Counts[], n: number): Counts => {
  const out = { statements: 0, reads: 0, writes: 0, transactions: 0, writeCommits: 0, bytesOut: 0 };
  for (const c of list) for (const k of Object.keys(out) as Array<keyof Counts>) out[k] += c[k];
  for (const k of Object.keys(out) as Array<keyof Counts>) out[k] = n ? out[k] / n : NaN;
  return out;
};

export const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export function machineContext(dbVersions: string[], loadAtStart: string): string[] {
  const cpu = cpus();
  return [
    `node ${process.version} · ${cpu.length} cores (${cpu[0]?.model.trim() ?? "?"}) · ${(totalmem() / 2 ** 30).toFixed(0)} GiB · Linux ${release()}`,
    `load average (1/5/15 min) at start ${loadAtStart}, at end ${load()} — other processes share these cores`,
    ...dbVersions,
  ];
}

const f = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : "–");

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export function printTables(rows: Row[]) {
  console.log(
    "\nThroughput (one worker; wall clock of worker.drain(), runs created beforehand; one run at a time unless the row says concurrent)",
  );
  console.log(
    table(
      ["db", "scenario", "runs", "steps", "wall s", "steps/s", "p50 ms", "p99 ms"],
      rows.map((r) => [
        r.db,
        r.scenario,
        `${r.runs}`,
        `${r.steps}`,
        f(r.wallMs / 1000),
        f(r.stepsPerSec, 0),
        f(r.p50Ms),
        f(r.p99Ms),
      ]),
    ),
  );
  const allInOnly = (r: Row) => r.overlapping || r.carried;
  const star = (r: Row) => (allInOnly(r) ? `${r.scenario} *` : r.scenario);
  console.log("\nCost per tool step, counted at the driver (better-sqlite3 prepare / pg Client#query)");
  console.log(
    table(
      [
        "db",
        "scenario",
        "write commits",
        "transactions",
        "statements",
        "reads",
        "writes",
        "KB sent",
        "| all-in commits",
        "all-in txns",
        "all-in stmts",
        "xact_commit",
      ],
      rows.map((r) => [
        r.db,
        star(r),
        f(r.perStep.writeCommits),
        f(r.perStep.transactions),
        f(r.perStep.statements),
        f(r.perStep.reads),
        f(r.perStep.writes),
        f(r.perStep.bytesOut / 1024, 1),
        `| ${f(r.allInPerStep.writeCommits)}`,
        f(r.allInPerStep.transactions),
        f(r.allInPerStep.statements),
        r.xactCommitPerStep === null ? "n/a" : f(r.xactCommitPerStep),
      ]),
    ),
  );
  if (rows.some(allInOnly))
    console.log(
      "  * these columns are the all-in ones: with runs in flight at once a step's window holds other runs' statements;\n" +
        "    pure steps are carried to a later commit (lib/runtime/cursor.ts commitRead), so a step's window holds none of its writes",
    );
  console.log("\nPer run, outside its tool steps (claim, final complete-step commit, lease release)");
  console.log(
    table(
      ["db", "scenario", "write commits", "transactions", "statements"],
      rows
        .filter((r) => !allInOnly(r))
        .map((r) => [
          r.db,
          r.scenario,
          f(r.perRunOverhead.writeCommits),
          f(r.perRunOverhead.transactions),
          f(r.perRunOverhead.statements),
        ]),
    ),
  );
  console.log(
    "\nCPU per tool step over the drain (process.cpuUsage of this process; utime+stime of the database's Postgres backends from /proc)",
  );
  console.log(
    table(
      ["db", "scenario", "Node CPU ms", "Postgres backend CPU ms", "total ms"],
      rows.map((r) => [
        r.db,
        r.scenario,
        f(r.cpu.nodeMs, 3),
        r.cpu.backendMs === null ? "n/a" : f(r.cpu.backendMs, 3),
        f(r.cpu.nodeMs + (r.cpu.backendMs ?? 0), 3),
      ]),
    ),
  );
  console.log("\nRuntimeStore calls per tool step (counting proxy around the store)");
  for (const r of rows) {
    console.log(
      `  ${r.db} · ${r.scenario}: ${Object.entries(r.storeCallsPerStep)
        .map(([k, v]) => `${k} ${f(v)}`)
        .join(", ")}`,
    );
  }
}

/** A small table for the scenario sections (first two columns left-aligned, the rest right-aligned). */
export const printTable = (header: string[], rows: string[][]) => console.log(table(header, rows));
export const fmt = f;

/**
 * A scenario's latency table: its title, then a row for each database and each thing timed (`rows` names them:
 * [label, stats]) with its median, 95th percentile and maximum. `timed` heads the label column ("interval", "call").
 */
export function printLatencies<R extends { db: string }>(
  title: string,
  timed: string,
  results: R[],
  rows: (result: R) => Array<[label: string, latency: LatencyStats]>,
) {
  console.log(`\n${title}`);
  printTable(
    ["db", timed, "p50 ms", "p95 ms", "max ms"],
    results.flatMap((r) => rows(r).map(([label, s]) => [r.db, label, fmt(s.p50), fmt(s.p95), fmt(s.max)])),
  );
}

export const LEGEND = [
  "Legend:",
  "  step          = one tool call of the agent loop (policy decision → permission check → call → commit(s)).",
  "  steps/s       = tool steps / wall time of the drain, run overhead included; p50/p99 = one tool step's window",
  "                  (decision of step k → decision of step k+1 of the same run; under concurrency it includes queueing).",
  "  write commits = COMMITs of transactions that wrote + autocommit INSERT/UPDATE/DELETE: the commits that",
  "                  must reach the disk (fsynced on Postgres, and on SQLite with synchronous=FULL as lib/db.ts sets it).",
  "  transactions  = all transactions, read-only ones included (BEGIN…COMMIT, or one autocommit statement).",
  "  statements    = SQL statements sent; on Postgres each is one network round trip.",
  "  KB sent       = bytes of bound parameters (JSON state, checkpoint, events…) sent per step.",
  "  all-in        = whole drain (claims, final complete step, releases) / tool steps; all-in txns is",
  "                  the driver's count of what xact_commit counts at the server: the two should agree.",
  "  CPU ms        = CPU time over the drain / tool steps. Node: this process, user + system, the bench's own",
  "                  counters included; backend: the Postgres processes serving the bench database (10 ms ticks).",
  "  xact_commit   = pg_stat_database.xact_commit delta over the drain / tool steps (server-side; counts",
  "                  read-only transactions too, and any autovacuum/analyze on the bench database).",
];
