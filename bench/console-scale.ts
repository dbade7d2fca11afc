// The console at scale: 10,000 pending packets over several queues and agents, 100,000 decided ones and
// 100,000 runs (a few of 5,000 trace events and 500 checkpoints among them) in a throwaway database
// (SQLite, then Postgres when reachable), then the latency of the reads the console makes, called
// in-process with the bench's client. Printed figures, not timed tests.
//   npm run bench:console      (BENCH_PACKETS=10000 BENCH_DECIDED=100000 BENCH_RUNS=100000 BENCH_BIG_RUNS=5
//                               BENCH_BIG_EVENTS=5000 BENCH_BIG_CHECKPOINTS=500 BENCH_REPEAT=30 BENCH_WARMUP=2)
//   a quick one: BENCH_PACKETS=500 BENCH_DECIDED=5000 BENCH_RUNS=5000 BENCH_BIG_RUNS=1 npx tsx bench/console-scale.ts
// BENCH_SKIP_PG=1: SQLite only. BENCH_SEED_URL=<migrated database url>: seed that database (a console's own, for
// the browser figure) and exit. BENCH_BROWSER_URL=<console seeded so>: also time the first packet visible in
// Chromium (BENCH_BROWSER_EMAIL / BENCH_BROWSER_PASSWORD sign in; the demo operator by default).
// Each figure: BENCH_WARMUP calls first (not counted), then BENCH_REPEAT timed calls; p50 and p95 of those.
// Sizes and counts are printed with the figures. Rows are bulk-inserted (bench/support/console-seed.ts).
import { cpus } from "node:os";
import { createDb, getDb, providerOf, type Db } from "../lib/db";
import {
  findDecisionHistory,
  iterateDecisionHistory,
  type DecisionHistoryFilter,
} from "../lib/queries/decision-history";
import { countPendingPackets } from "../lib/queries/packets";
import { findInboxPage, type InboxPage } from "../lib/queries/inbox-page";
import { findPacketChanges } from "../lib/queries/packet-changes";
import { findCheckpointSummaries } from "../lib/queries/run-checkpoints";
import { findRunEvents } from "../lib/queries/run-events";
import { findRunList, type RunListFilter } from "../lib/queries/run-list";
import { getRunDetail } from "../lib/queries/runs";
import { SORTS, type InboxFilters } from "../lib/inbox/queue";
import { findTool } from "../lib/runtime/context";
import { getRuntime } from "../lib/runtime.server";
import { seedConsole, type SeedSizes, type SeededConsole } from "./support/console-seed";
import { onEachDatabase } from "./support/databases";
import { num } from "./support/env";
import { load, percentile } from "./support/report";

const SIZES: SeedSizes = {
  packets: num("BENCH_PACKETS", 10_000),
  decided: num("BENCH_DECIDED", 100_000),
  runs: num("BENCH_RUNS", 100_000),
  bigRuns: num("BENCH_BIG_RUNS", 5),
  bigEvents: num("BENCH_BIG_EVENTS", 5_000),
  bigCheckpoints: num("BENCH_BIG_CHECKPOINTS", 500),
};
const REPEAT = num("BENCH_REPEAT", 30);
const WARMUP = num("BENCH_WARMUP", 2);
const DEEP_PAGES = 20;
/** The issue's goals: every inbox and runs read under 100 ms at p95; an idle delta poll under 5 ms and a few hundred bytes. */
const QUERY_GOAL_MS = 100;
const IDLE_POLL_GOAL_MS = 5;
const IDLE_POLL_GOAL_BYTES = 500;

/** `bytes` (the last response's JSON) is judged against `goalBytes` too, when set. */
type Figure = {
  name: string;
  p50: number;
  p95: number;
  goalMs: number | null;
  detail: string;
  bytes?: number;
  goalBytes?: number;
};

const clock = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

/** `run(i)` returns the milliseconds of its timed part; WARMUP calls (i < 0) first, then REPEAT counted ones. */
async function sample(run: (i: number) => Promise<number>): Promise<{ p50: number; p95: number }> {
  for (let w = 1; w <= WARMUP; w++) await run(-w);
  const samples: number[] = [];
  for (let i = 0; i < REPEAT; i++) samples.push(await run(i));
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function figure(
  figures: Figure[],
  name: string,
  goalMs: number | null,
  run: (i: number) => Promise<number>,
  detail: () => string = () => "",
) {
  const { p50, p95 } = await sample(run);
  figures.push({ name, p50, p95, goalMs, detail: detail() });
}

const at = <T>(list: T[], i: number) => list[((i % list.length) + list.length) % list.length];

async function inboxFigures(db: Db, seeded: SeededConsole, figures: Figure[]) {
  // The tool lookup the console's inbox passes: the runtime's registry (built-ins, then registered tools).
  const lookupTool = (name: string) => findTool(getRuntime().context, name);
  const page = (filters: InboxFilters, cursor?: string, me = seeded.me) =>
    findInboxPage(db, { filters, me, cursor, workspaceId: null }, lookupTool);
  let last: InboxPage | undefined;
  for (const sort of SORTS) {
    await figure(
      figures,
      `inbox first page, sort=${sort}`,
      QUERY_GOAL_MS,
      (i) => clock(async () => (last = await page({ sort }, undefined, at(seeded.reviewers, i)))),
      () => `${last!.items.length} of ${last!.total}`,
    );
  }
  const filtered: Array<[string, InboxFilters]> = [
    ["queue=attention", { sort: "urgency", queue: "attention" }],
    ["tool=payments.refund, sort=expiry", { sort: "expiry", tool: "payments.refund" }],
    ["agent=deploy-agent, sort=impact", { sort: "impact", agent: "deploy-agent" }],
    ["capability=execute", { sort: "urgency", capability: "execute" }],
    ["assignee=unassigned, sort=age", { sort: "age", assignee: "unassigned" }],
    ["mine", { sort: "urgency", mine: true }],
  ];
  for (const [label, filters] of filtered) {
    await figure(
      figures,
      `inbox filtered page, ${label}`,
      QUERY_GOAL_MS,
      () => clock(async () => (last = await page(filters))),
      () => `${last!.items.length} of ${last!.total}`,
    );
  }
  // A deep page: the cursor a reviewer holds after paging DEEP_PAGES pages down, in each order.
  for (const sort of SORTS) {
    let cursor: string | undefined;
    let depth = 0;
    for (; depth < DEEP_PAGES; depth++) {
      const next = (await page({ sort }, cursor)).nextCursor;
      if (!next) break;
      cursor = next;
    }
    await figure(
      figures,
      `inbox page ${depth + 1} (cursor), sort=${sort}`,
      QUERY_GOAL_MS,
      () => clock(async () => (last = await page({ sort }, cursor))),
      () => `${last!.items.length} rows`,
    );
  }
  let count = { pending: 0, mine: 0 };
  await figure(
    figures,
    "navigation count (pending, mine)",
    QUERY_GOAL_MS,
    (i) => clock(async () => (count = await countPendingPackets(at(seeded.reviewers, i), { db }))),
    () => `${count.pending} / ${count.mine}`,
  );
}

/**
 * The change feed. Idle: a poll with the cursor of the poll before (nothing written since). Ten changes:
 * ten pending packets decided between two polls. Each round of changes is stamped 10 s after the last on
 * a clock passed to the feed, so a poll sees its own ten and not the previous round's (the feed re-reads
 * a few seconds of overlap) without the bench sleeping between rounds.
 */
async function changeFeedFigures(db: Db, seeded: SeededConsole, figures: Figure[]) {
  let bytes = 0;
  await figure(
    figures,
    "delta poll, no change",
    IDLE_POLL_GOAL_MS,
    async () => {
      const { cursor } = await findPacketChanges(db, undefined);
      let result: unknown;
      const ms = await clock(async () => (result = await findPacketChanges(db, cursor)));
      bytes = JSON.stringify(result).length;
      return ms;
    },
    () => `${bytes} bytes`,
  );
  Object.assign(figures.at(-1)!, { bytes, goalBytes: IDLE_POLL_GOAL_BYTES });
  const pending = (
    await db.decisionPacket.findMany({
      where: { status: "PENDING" },
      select: { id: true },
      orderBy: { id: "desc" },
      take: (WARMUP + REPEAT) * 10,
    })
  ).map((p) => p.id);
  const base = Date.now() + 60_000;
  let round = 0;
  let seen = 0;
  await figure(
    figures,
    "delta poll, 10 changes",
    QUERY_GOAL_MS,
    async () => {
      const stamp = base + round * 10_000;
      // Ten packets not touched before (at small sizes the list comes round again: a second decision is still a change).
      const ids = Array.from(
        { length: Math.min(10, pending.length) },
        (_, k) => pending[(round * 10 + k) % pending.length],
      );
      round++;
      await db.decisionPacket.updateMany({
        where: { id: { in: ids } },
        data: {
          status: "APPROVED",
          decidedBy: seeded.me,
          decidedAt: new Date(stamp),
          changedAt: new Date(stamp),
          version: { increment: 1 },
        },
      });
      let result: Awaited<ReturnType<typeof findPacketChanges>> | undefined;
      const ms = await clock(
        async () => (result = await findPacketChanges(db, String(stamp - 1), () => new Date(stamp + 1))),
      );
      seen = result!.changes.length;
      bytes = JSON.stringify(result).length;
      return ms;
    },
    () => `${seen} changes, ${bytes} bytes`,
  );
}

async function runFigures(db: Db, seeded: SeededConsole, figures: Figure[]) {
  let rows = 0;
  const list = (filter: RunListFilter) => clock(async () => (rows = (await findRunList(db, filter)).runs.length));
  // [label, the filter of the i-th call, whether it changes from call to call (the rows shown are then the last call's)]
  const listings: Array<[string, (i: number) => RunListFilter, boolean]> = [
    ["runs first page", () => ({}), false],
    ["runs search, few hits (order id / email)", (i) => ({ q: at(seeded.search.few, i) }), true],
    ["runs search, many hits", (i) => ({ q: at(seeded.search.many, i) }), true],
    ["runs status=WAITING_APPROVAL", () => ({ status: "WAITING_APPROVAL" }), false],
    ["runs status=FAILED, agent=refund-agent", () => ({ status: "FAILED", agent: "refund-agent" }), false],
  ];
  for (const [label, filter, varies] of listings)
    await figure(
      figures,
      label,
      QUERY_GOAL_MS,
      (i) => list(filter(i)),
      () => `${rows} rows${varies ? " (last)" : ""}`,
    );

  const big = seeded.bigRunIds;
  if (big.length === 0) return;
  let events = 0;
  await figure(
    figures,
    `run page: events after 0 (${SIZES.bigEvents}-event run)`,
    QUERY_GOAL_MS,
    (i) => clock(async () => (events = (await findRunEvents(db, at(big, i), { after: 0 })).events.length)),
    () => `${events} events`,
  );
  await figure(
    figures,
    "run page: events, last page",
    QUERY_GOAL_MS,
    (i) =>
      clock(
        async () => (events = (await findRunEvents(db, at(big, i), { after: SIZES.bigEvents - 200 })).events.length),
      ),
    () => `${events} events`,
  );
  await figure(
    figures,
    "run page: checkpoint list",
    QUERY_GOAL_MS,
    (i) => clock(() => findCheckpointSummaries(db, at(big, i))),
    () => `${SIZES.bigCheckpoints} checkpoints`,
  );
  // What the run page (app/(console)/runs/[id]/page.tsx) loads first: getRunDetail, on the console's own client (DATABASE_URL).
  let detail = "";
  await figure(
    figures,
    "run page: getRunDetail (all it loads first)",
    QUERY_GOAL_MS,
    (i) =>
      clock(async () => {
        const d = await getRunDetail(at(big, i));
        detail =
          d?.kind === "readable"
            ? `${d.trace.events.length} events, ${d.snapshot.checkpoints.length} checkpoints, ${d.run.state.facts.length} facts`
            : String(d?.kind);
      }),
    () => detail,
  );
}

async function historyFigures(db: Db, seeded: SeededConsole, figures: Figure[]) {
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  let shown = "";
  const page = (filter: DecisionHistoryFilter) =>
    clock(async () => (shown = `${(await findDecisionHistory(db, filter)).entries.length} rows`));
  await figure(
    figures,
    "decision history, first page",
    QUERY_GOAL_MS,
    () => page({}),
    () => shown,
  );
  const filters: Array<[string, (i: number) => DecisionHistoryFilter]> = [
    ["reviewer", (i) => ({ reviewer: at(seeded.reviewers, i) })],
    ["tool=payments.refund", () => ({ tool: "payments.refund" })],
    ["decision=REJECTED, last 7 days", () => ({ decision: "REJECTED", from: day(7), to: day(0) })],
    ["reviewer + tool=mail.send", (i) => ({ reviewer: at(seeded.reviewers, i), tool: "mail.send" })],
  ];
  for (const [label, filter] of filters)
    await figure(
      figures,
      `decision history, ${label}`,
      QUERY_GOAL_MS,
      (i) => page(filter(i)),
      () => shown,
    );
  let cursor: string | undefined;
  let depth = 1;
  for (; depth <= DEEP_PAGES; depth++) {
    const older = (await findDecisionHistory(db, { cursor })).olderCursor;
    if (!older) break;
    cursor = older;
  }
  await figure(
    figures,
    `decision history, page ${depth} (cursor)`,
    QUERY_GOAL_MS,
    () => page({ cursor }),
    () => shown,
  );
  // The CSV export of a filter: every matching decision, read in the export's batches, written as CSV lines.
  let rows = 0;
  let bytes = 0;
  await figure(
    figures,
    "decision history CSV, tool=payments.refund, 7 days",
    null,
    () =>
      clock(async () => {
        rows = 0;
        bytes = 0;
        for await (const entry of iterateDecisionHistory(db, { tool: "payments.refund", from: day(7), to: day(0) })) {
          const p = entry.packet;
          bytes +=
            [p.decidedAt?.toISOString(), p.decidedBy, p.status, p.tool, JSON.stringify(p.args), p.runId, entry.waitedMs]
              .map((v) => `"${String(v ?? "").replaceAll('"', '""')}"`)
              .join(",").length + 1;
          rows++;
        }
      }),
    () => `${rows} rows, ${(bytes / 1024).toFixed(0)} KB`,
  );
}

function printFigures(label: string, figures: Figure[]) {
  console.log(`\n${label}: p50/p95 of ${REPEAT} calls each, after ${WARMUP} warm-up call(s) not counted`);
  const w = Math.max(...figures.map((f) => f.name.length));
  console.log(
    `${"figure".padEnd(w)}  ${"p50 ms".padStart(8)}  ${"p95 ms".padStart(8)}  ${"goal (p95)".padStart(17)}     detail`,
  );
  for (const f of figures) {
    const goal = f.goalMs === null ? "—" : `< ${f.goalMs} ms${f.goalBytes ? `, ≤ ${f.goalBytes} B` : ""}`;
    const ok = f.goalMs !== null && f.p95 < f.goalMs && (f.goalBytes === undefined || f.bytes! <= f.goalBytes);
    const mark = f.goalMs === null ? " " : ok ? "✔" : "✘";
    console.log(
      `${f.name.padEnd(w)}  ${f.p50.toFixed(1).padStart(8)}  ${f.p95.toFixed(1).padStart(8)}  ${goal.padStart(17)}  ${mark}  ${f.detail}`,
    );
  }
}

async function measure(label: string, url: string) {
  // The console's own client (getRunDetail, the runtime's tool lookup) follows DATABASE_URL.
  process.env.DATABASE_URL = url;
  const db = createDb(url);
  // The database was made by set-up (migrate → scripts/setup.ts), search index included: the seed pays for its upkeep as production writes do.
  const seeded = await seedConsole(db, SIZES, new Date());
  console.log(`\n${label}: seeded in ${(seeded.seedMs / 1000).toFixed(1)} s`);
  for (const [table, n] of Object.entries(seeded.counts))
    console.log(`  ${table.padEnd(24)} ${n.toLocaleString("en").padStart(10)}`);
  if (providerOf(url) === "postgres") {
    // Autovacuum analyzes freshly loaded tables within a minute; done now so the plans do not change mid-run.
    await db.$executeRawUnsafe("ANALYZE");
    console.log("  (ANALYZE run after seeding; SQLite gets none, as production set-up runs none)");
  }
  const figures: Figure[] = [];
  const loadBefore = load();
  await inboxFigures(db, seeded, figures);
  await runFigures(db, seeded, figures);
  await historyFigures(db, seeded, figures);
  await changeFeedFigures(db, seeded, figures); // last: it decides packets
  printFigures(label, figures);
  console.log(`load average (1, 5, 15 min) before: ${loadBefore}, after: ${load()} on ${cpus().length} CPUs`);
  await db.$disconnect();
  await getDb().$disconnect();
}

/** First packet visible: navigation start → the first row of the pending list on screen, in Chromium. */
async function browserFigure(baseUrl: string) {
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 800 } });
    const signIn = await context.newPage();
    await signIn.goto("/signin");
    await signIn.getByLabel("Email").fill(process.env.BENCH_BROWSER_EMAIL ?? "operator@example.com");
    await signIn.getByLabel("Password").fill(process.env.BENCH_BROWSER_PASSWORD ?? "tether-demo");
    await signIn.getByRole("button", { name: "Sign in", exact: true }).click();
    await signIn.waitForURL((u) => !u.pathname.startsWith("/signin"));
    await signIn.close();
    const figures: Figure[] = [];
    await figure(figures, "first packet visible (/inbox)", 600, async () => {
      const page = await context.newPage();
      try {
        await page.goto("/inbox", { waitUntil: "commit" });
        // performance.now() is measured from the navigation's start; read on the first frame the row is in.
        const handle = await page.waitForFunction(
          () => (document.querySelector('ul[aria-label="Pending packets"] > li') ? performance.now() : 0),
          null,
          { polling: "raf", timeout: 30_000 },
        );
        return Number(await handle.jsonValue());
      } finally {
        await page.close();
      }
    });
    printFigures(`Browser (${baseUrl})`, figures);
  } finally {
    await browser.close();
  }
}

async function main() {
  console.log(
    `Sizes: ${Object.entries(SIZES)
      .map(([k, v]) => `${k}=${v.toLocaleString("en")}`)
      .join(", ")}`,
  );
  if (process.env.BENCH_SEED_URL) {
    const db = createDb(process.env.BENCH_SEED_URL);
    const seeded = await seedConsole(db, SIZES, new Date());
    console.log(`Seeded ${process.env.BENCH_SEED_URL} in ${(seeded.seedMs / 1000).toFixed(1)} s:`, seeded.counts);
    await db.$disconnect();
    return;
  }
  await onEachDatabase(measure);
  if (process.env.BENCH_BROWSER_URL) await browserFigure(process.env.BENCH_BROWSER_URL);
  else
    console.log(
      "\nBrowser figure skipped (first packet visible < 600 ms): set BENCH_BROWSER_URL to a running console seeded with BENCH_SEED_URL.",
    );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
