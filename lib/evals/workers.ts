import type { Db } from "@/lib/db";
import type { EvalEngine, PolicyKind } from "./eval-runtime";
import type { FaultSpec } from "./faults";
import type { WorkerPool, WorkerProcess } from "./worker-pool";

// Who drives a trial's run. Without a crash fault: a worker in the harness process (drain until
// nothing is runnable). With one: worker processes. Crash trials run in waves: one victim process
// drives every trial of the wave, each run held at its own fault point; once every trial of the wave
// is held there (or ended without reaching it), the victim is killed with SIGKILL — one real process
// kill for the whole wave, at each run's fault point — and after the dead worker's lease expires a
// fresh process (the rescuer, shared by all waves) takes every run over.

export type TrialWorkers = {
  /** Drive until the run is parked or ended (nothing runnable now). */
  settle: (runId: string) => Promise<void>;
  /** The kill that happened, if any. */
  crashed: () => { at: string; killedPid: number; takeoverPid: number } | null;
  /** Time spent waiting for processes to be ready: harness overhead, not the run's. */
  overheadMs: () => number;
  close: () => Promise<void>;
};

const ACTIVE = ["QUEUED", "RUNNING"];
const WAKEABLE = ["SLEEPING", "WAITING_EVENT", "WAITING_APPROVAL", "NEEDS_ATTENTION"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function inProcessWorkers(engine: EvalEngine): TrialWorkers {
  const worker = engine.runtime.createWorker({ leaseMs: 30_000, owner: "eval-harness" });
  return {
    settle: async () => {
      await worker.drain();
    },
    crashed: () => null,
    overheadMs: () => 0,
    close: async () => {},
  };
}

export type CrashWave = {
  victim: () => Promise<WorkerProcess>;
  rescuer: () => Promise<WorkerProcess>;
  /** A trial is held at its fault point, or is done with the victim (idempotent). The last arrival kills it. */
  arrive: (trial: string) => void;
  killed: Promise<number>;
};

export function createCrashWave(pool: WorkerPool, size: number, rescuer: () => Promise<WorkerProcess>): CrashWave {
  const victim = pool.acquire();
  const arrived = new Set<string>();
  let kill: (pid: number) => void = () => {};
  const killed = new Promise<number>((resolve) => (kill = resolve));
  return {
    victim: () => victim,
    rescuer,
    arrive(trial) {
      if (arrived.has(trial)) return;
      arrived.add(trial);
      if (arrived.size === size) {
        void victim.then(async (v) => {
          await v.kill(); // SIGKILL: no cleanup; every lease it held stays taken until it expires
          kill(v.pid);
        });
      }
    },
    killed,
  };
}

export async function processWorkers(opts: {
  db: Db;
  wave: CrashWave;
  trial: string;
  dbUrl: string;
  sandboxUrl: string;
  policy: PolicyKind;
  subject: string | null;
  breakIdempotency: boolean;
  fault: Extract<FaultSpec, { kind: "crash" }>;
  leaseMs: number;
  deadline: number;
}): Promise<TrialWorkers> {
  const base = {
    cmd: "start",
    trial: opts.trial,
    dbUrl: opts.dbUrl,
    sandboxUrl: opts.sandboxUrl,
    policy: opts.policy,
    subject: opts.subject,
    breakIdempotency: opts.breakIdempotency,
  };
  let overhead = 0;
  const waitReady = async <T>(work: Promise<T>) => {
    const t = Date.now();
    const value = await work;
    overhead += Date.now() - t;
    return value;
  };
  const victim = await waitReady(opts.wave.victim());
  victim.send({ ...base, faultAt: opts.fault.point, faultTool: opts.fault.tool, leaseMs: opts.leaseMs });
  await waitReady(victim.waitFor(`STARTED ${opts.trial}`, 120_000));
  let current = victim;
  let crash: { at: string; killedPid: number; takeoverPid: number } | null = null;
  const arrive = () => opts.wave.arrive(opts.trial);

  async function isSettled(runId: string): Promise<boolean> {
    const run = await opts.db.run.findUnique({ where: { id: runId }, select: { status: true, wakeAt: true } });
    if (!run) return true;
    if (ACTIVE.includes(run.status)) return false;
    return !(WAKEABLE.includes(run.status) && run.wakeAt && run.wakeAt.getTime() <= Date.now());
  }

  return {
    async settle(runId) {
      for (;;) {
        if (Date.now() > opts.deadline) {
          arrive();
          throw new Error("trial deadline passed while a worker process drove the run");
        }
        const line = crash ? undefined : victim.saw(`FAULT ${opts.trial} `);
        if (line) {
          arrive();
          const killedPid = await waitReady(opts.wave.killed);
          await sleep(opts.leaseMs + 100); // the dead worker's lease must expire first
          current = await waitReady(opts.wave.rescuer());
          current.send({ ...base, leaseMs: 5_000 });
          await waitReady(current.waitFor(`STARTED ${opts.trial}`, 120_000));
          crash = { at: line.trim(), killedPid, takeoverPid: current.pid };
          continue;
        }
        if (!current.alive()) throw new Error(`eval worker ${current.pid} died`);
        if (await isSettled(runId)) {
          if (!crash && victim.saw(`FAULT ${opts.trial} `)) continue; // a fault line raced the park
          return;
        }
        await sleep(15);
      }
    },
    crashed: () => crash,
    overheadMs: () => overhead,
    async close() {
      arrive();
      if (current !== victim && current.alive()) {
        current.send({ cmd: "stop", trial: opts.trial });
        await current.waitFor(`STOPPED ${opts.trial}`, 20_000).catch(() => {});
      } else if (victim.alive()) {
        victim.send({ cmd: "stop", trial: opts.trial });
      }
    },
  };
}
