// A real worker process for crash tests. It drives runs like any worker; when it reaches the fault
// point named in TETHER_FAULT_AT for the tool in TETHER_FAULT_TOOL, it says so on stdout and stops
// there, so the test can kill it with SIGKILL at exactly that point.
//   env: DATABASE_URL, WORLD_URL, AGENTS (JSON [{kind:"refund"|"deploy"|"refund-loop"|"noop"|"echo"|"spawn-parent", slug, budget?, child?}]), TETHER_LEASE_MS,
//   TETHER_WORKER_CONCURRENCY, TETHER_POLL_MS, TETHER_SHUTDOWN_MS; TETHER_FAULT_AT unset: no fault point, the worker just works;
//   TETHER_FAULT_STEP: only at that step of the run (a run that calls the tool at every step).
//   SCHEDULE_TICK_MS set: the schedule ticker runs too (claim lease SCHEDULE_CLAIM_MS); SCHEDULE_FAULT_AT
//   (after-record | after-start) holds it there once, saying "SCHEDULE_FAULT <point> <tick>", until killed.
import { createDb } from "../../lib/db";
import { installGracefulShutdown } from "../../lib/lifecycle/shutdown";
import type { AgentDefinition } from "../../lib/runtime";
import { createTether } from "../../lib/tether";
import { startScheduleTicker } from "../../lib/schedules/ticker";
import { deployAgent, echoAgent, refundAgent, refundLoopAgent, scriptedAgent, spawnParentAgent } from "./agents";
import { worldTools } from "./tools";

const agents: AgentDefinition[] = (
  JSON.parse(process.env.AGENTS ?? "[]") as Array<{
    kind: string;
    slug: string;
    budget?: AgentDefinition["budget"];
    child?: string;
  }>
).map((a) =>
  a.kind === "noop"
    ? scriptedAgent(a.slug, [], [])
    : a.kind === "echo"
      ? echoAgent(a.slug)
      : a.kind === "spawn-parent"
        ? spawnParentAgent(a.slug, a.child!)
        : a.kind === "deploy"
          ? deployAgent(a.slug)
          : a.kind === "refund-loop"
            ? refundLoopAgent(a.slug, a.budget)
            : refundAgent(a.slug),
);
const db = createDb(process.env.DATABASE_URL);
const { runtime } = createTether({
  db,
  registeredTools: false,
  agents,
  tools: worldTools(process.env.WORLD_URL!),
  retryBaseDelayMs: 5,
  // Warnings and errors go to stderr, which a failing test prints.
  logger: {
    info() {},
    warn: (msg, data) => console.error(`[warn] ${msg}`, JSON.stringify(data ?? {})),
    error: (msg, data) => console.error(`[error] ${msg}`, JSON.stringify(data ?? {})),
  },
  onFaultPoint: async (point, info) => {
    const atStep = process.env.TETHER_FAULT_STEP === undefined || Number(process.env.TETHER_FAULT_STEP) === info.step;
    if (point === process.env.TETHER_FAULT_AT && info.tool === process.env.TETHER_FAULT_TOOL && atStep) {
      process.stdout.write(`FAULT ${point} ${info.tool} ${info.runId}\n`);
      await new Promise(() => {}); // hold here until killed
    }
  },
});
const worker = runtime.createWorker({
  leaseMs: Number(process.env.TETHER_LEASE_MS ?? 1000),
  pollMs: Number(process.env.TETHER_POLL_MS ?? 50),
  concurrency: Number(process.env.TETHER_WORKER_CONCURRENCY ?? 64),
});
// On Postgres the store's LISTEN connection, once up, sends a first wake-up without a run: say so.
const unsubscribe = runtime.store.onRunnable((w) => {
  if (w.runId) return;
  process.stdout.write("LISTENING\n");
  queueMicrotask(unsubscribe);
});
worker.start();
if (process.env.SCHEDULE_TICK_MS) {
  startScheduleTicker({
    db,
    runtime,
    owner: worker.owner,
    intervalMs: Number(process.env.SCHEDULE_TICK_MS),
    claimMs: Number(process.env.SCHEDULE_CLAIM_MS ?? 1000),
    logger: {
      info() {},
      warn: (msg, data) => console.error(`[warn] ${msg}`, JSON.stringify(data ?? {})),
      error: (msg, data) => console.error(`[error] ${msg}`, JSON.stringify(data ?? {})),
    },
    onFaultPoint: async (point, info) => {
      // Only the test's own schedule stops: others left in the shared database by earlier test files fire as usual.
      if (point !== process.env.SCHEDULE_FAULT_AT) return;
      if (process.env.SCHEDULE_FAULT_FOR && info.scheduleId !== process.env.SCHEDULE_FAULT_FOR) return;
      process.stdout.write(`SCHEDULE_FAULT ${point} ${info.tick?.toISOString()}\n`);
      await new Promise(() => {}); // hold here until killed
    },
  });
}
process.stdout.write(`READY ${worker.owner}\n`);
// SIGTERM as `npm run worker` and the console take it (lib/lifecycle/shutdown.ts): stop claiming, finish each
// step in hand, give the runs back, exit within TETHER_SHUTDOWN_MS.
installGracefulShutdown({
  name: `worker ${worker.owner}`,
  shutdownMs: Number(process.env.TETHER_SHUTDOWN_MS ?? 25_000),
  logger: {
    info() {},
    warn: (msg, data) => console.error(`[warn] ${msg}`, JSON.stringify(data ?? {})),
    error: (msg, data) => console.error(`[error] ${msg}`, JSON.stringify(data ?? {})),
  },
  drain: async ({ graceMs }) => {
    process.stdout.write(`STOPPING ${worker.inFlight}\n`);
    await worker.stop({ graceMs });
    process.stdout.write("STOPPED\n");
  },
});
