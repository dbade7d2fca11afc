import type { Db } from "@/lib/db";
import type { EvalEngine, PolicyKind } from "./eval-runtime";
import type { FaultSpec } from "./faults";
import type { WorkerPool, WorkerProcess } from "./worker-pool";

// Who drives a trial's run. Without a crash fault: a worker in the harness process (drain until
// nothing is runnable). With one: worker processes — the first one is killed at the fault point, a
// fresh process takes over once the dead one's lease expires.

export type TrialWorkers = {
  /** Drive until the run is parked or ended (nothing runnable now). */
  settle: (runId: string) => Promise<void>;
  /** The kill that happened, if any. */
  crashed: () => { at: string; killedPid: number; takeoverPid: number } | null;
  close: () => Promise<void>;
};

const ACTIVE = ["QUEUED", "RUNNING"];
const WAKEABLE = ["SLEEPING", "WAITING_EVENT", "WAITING_APPROVAL", "NEEDS_ATTENTION"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function inProcessWorkers(engine: EvalEngine): TrialWorkers {
  const worker = engine.runtime.createWorker({ leaseMs: 30_000, owner: "eval-harness" });
  return {
    settle: async () => { await worker.drain(); },
    crashed: () => null,
    close: async () => {},
  };
}

export async function processWorkers(opts: {
  db: Db; pool: WorkerPool; dbUrl: string; sandboxUrl: string; policy: PolicyKind; breakIdempotency: boolean; fault: Extract<FaultSpec, { kind: "crash" }>; leaseMs: number; deadline: number;
}): Promise<TrialWorkers> {
  const base = { cmd: "start", dbUrl: opts.dbUrl, sandboxUrl: opts.sandboxUrl, policy: opts.policy, breakIdempotency: opts.breakIdempotency };
  let current: WorkerProcess = await opts.pool.acquire();
  current.send({ ...base, faultAt: opts.fault.point, faultTool: opts.fault.tool, leaseMs: opts.leaseMs });
  await current.waitFor("STARTED");
  let crash: { at: string; killedPid: number; takeoverPid: number } | null = null;

  async function isSettled(runId: string): Promise<boolean> {
    const run = await opts.db.run.findUnique({ where: { id: runId }, select: { status: true, wakeAt: true } });
    if (!run) return true;
    if (ACTIVE.includes(run.status)) return false;
    return !(WAKEABLE.includes(run.status) && run.wakeAt && run.wakeAt.getTime() <= Date.now());
  }

  return {
    async settle(runId) {
      for (;;) {
        if (Date.now() > opts.deadline) throw new Error("trial deadline passed while a worker process drove the run");
        const line = crash ? undefined : current.saw("FAULT ");
        if (line) {
          const killedPid = current.pid;
          await current.kill(); // SIGKILL: no cleanup, the lease stays taken until it expires
          await sleep(opts.leaseMs + 100);
          current = await opts.pool.acquire();
          current.send({ ...base, leaseMs: 5_000 });
          await current.waitFor("STARTED");
          crash = { at: line.trim(), killedPid, takeoverPid: current.pid };
          continue;
        }
        if (!current.alive()) throw new Error(`eval worker ${current.pid} died`);
        if (await isSettled(runId)) {
          // A fault line may race the park; look once more before calling it settled.
          if (!crash && current.saw("FAULT ")) continue;
          return;
        }
        await sleep(15);
      }
    },
    crashed: () => crash,
    async close() {
      if (!current.alive()) return;
      current.send({ cmd: "stop" });
      try {
        await current.waitFor("STOPPED", 10_000);
        opts.pool.release(current);
      } catch {
        await current.kill();
      }
    },
  };
}
