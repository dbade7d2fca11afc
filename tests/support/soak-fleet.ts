import { kill, spawnWorker } from "./spawn-worker";

// A fleet of real worker processes (tests/support/crash-worker.ts) in fixed slots, for the soak: a slot's
// worker can be SIGKILLed and replaced, or every slot emptied at once (a blackout) and filled again.
// It remembers every process it ever started, so `shutdown` (afterAll) leaves none behind, and it
// tells apart the processes it killed from those that died on their own (a bug worth failing on).

export type FleetWorker = {
  readonly slot: number;
  /** The worker's lease owner id, once it printed READY. */
  owner: string | null;
  killedByUs: boolean;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  /** Its stderr (warnings and errors), kept for the report. */
  stderr: string;
  /** Resolves when it printed READY (or exited before that). */
  ready: Promise<void>;
};

export type WorkerFleet = ReturnType<typeof createWorkerFleet>;

export function createWorkerFleet(env: Record<string, string>, size: number) {
  const slots: Array<(FleetWorker & { stop: () => Promise<void> }) | null> = Array.from({ length: size }, () => null);
  const everyone: Array<FleetWorker & { stop: () => Promise<void> }> = [];

  function spawnInto(slot: number) {
    const { child } = spawnWorker(env);
    let out = "";
    let markReady: () => void = () => {};
    const worker: FleetWorker & { stop: () => Promise<void> } = {
      slot,
      owner: null,
      killedByUs: false,
      exit: null,
      stderr: "",
      ready: new Promise<void>((resolve) => {
        markReady = resolve;
      }),
      stop: async () => {
        if (!worker.exit) worker.killedByUs = true;
        await kill(child);
      },
    };
    child.stdout!.on("data", (d) => {
      out += d;
      const ready = /READY (\S+)/.exec(out);
      if (ready && !worker.owner) {
        worker.owner = ready[1];
        markReady();
      }
    });
    child.stderr!.on("data", (d) => {
      worker.stderr = (worker.stderr + d).slice(-20_000);
    });
    child.once("exit", (code, signal) => {
      worker.exit = { code, signal };
      markReady();
    });
    slots[slot] = worker;
    everyone.push(worker);
    return worker;
  }

  return {
    size,
    /** Fill every empty slot; resolves when the new workers are ready. */
    async fill() {
      const started = slots.flatMap((w, slot) => (w ? [] : [spawnInto(slot)]));
      await Promise.all(started.map((w) => w.ready));
    },
    worker: (slot: number) => slots[slot],
    /** Workers able to drive runs now: ready, and not exited. */
    ready: (): FleetWorker[] =>
      slots.filter((w): w is NonNullable<typeof w> => w !== null && w.owner !== null && !w.exit),
    /** SIGKILL the slot's worker (nothing if empty) and start its replacement at once (not awaited). */
    async killAndReplace(slot: number): Promise<FleetWorker | null> {
      const victim = slots[slot];
      slots[slot] = null;
      if (victim) await victim.stop();
      spawnInto(slot);
      return victim;
    },
    /** SIGKILL every worker and leave the slots empty until `fill`. */
    async killAll(): Promise<FleetWorker[]> {
      const victims = slots.filter((w): w is NonNullable<typeof w> => w !== null);
      slots.fill(null);
      await Promise.all(victims.map((w) => w.stop()));
      return victims;
    },
    spawned: () => everyone.length,
    /** Workers that exited although nobody killed them. */
    diedOnTheirOwn: (): FleetWorker[] => everyone.filter((w) => w.exit && !w.killedByUs),
    /** stderr lines of every worker that match (e.g. "[error]"), with the worker's slot. */
    logLines: (match: string) =>
      everyone.flatMap((w) =>
        w.stderr
          .split("\n")
          .filter((l) => l.includes(match))
          .map((l) => `slot ${w.slot} ${w.owner ?? "?"}: ${l}`),
      ),
    /** Kill every process this fleet ever started. */
    async shutdown() {
      slots.fill(null);
      await Promise.all(everyone.map((w) => w.stop()));
    },
  };
}
