import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { childProcessEnvironment } from "@/lib/config";

// Worker processes for crash faults, kept warm: loading the engine takes a second or two, so the pool
// always has processes that are already loaded. A process that was killed is gone; one that finished
// a trial cleanly ("stop") goes back to the pool and serves the next trial on another database.

export type WorkerProcess = {
  pid: number;
  /** Resolves with the first stdout line containing text (or rejects when the process exits first). */
  waitFor: (text: string, timeoutMs?: number) => Promise<string>;
  /** The first line printed that contains text (lines name their trial, so they are unique). */
  saw: (text: string) => string | undefined;
  send: (command: object) => void;
  kill: () => Promise<void>;
  alive: () => boolean;
};

const ENTRY = path.join(process.cwd(), "lib/evals/worker-process.ts");

function spawnWorker(): WorkerProcess {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", ENTRY], {
    stdio: ["pipe", "pipe", "pipe"],
    env: childProcessEnvironment({ NODE_OPTIONS: "" }),
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err = (err + d).slice(-4000)));
  child.stdin!.on("error", () => {}); // writing to a killed process
  const find = (text: string) => out.split("\n").find((l) => l.includes(text));
  return {
    pid: child.pid!,
    saw: find,
    waitFor: (text, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          const line = find(text);
          if (line) {
            clearInterval(poll);
            resolve(line);
          } else if (child.exitCode !== null || child.signalCode !== null || Date.now() - started > timeoutMs) {
            clearInterval(poll);
            reject(
              new Error(
                `eval worker ${child.pid} never printed "${text}" (exit ${child.exitCode ?? child.signalCode})\n${err}`,
              ),
            );
          }
        }, 10);
      }),
    send: (command) => {
      child.stdin!.write(`${JSON.stringify(command)}\n`);
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
    alive: () => child.exitCode === null && child.signalCode === null,
  };
}

export type WorkerPool = {
  acquire: () => Promise<WorkerProcess>;
  /** A process that stopped cleanly goes back to the pool. */
  release: (worker: WorkerProcess) => void;
  close: () => Promise<void>;
  spawned: () => number;
};

export function createWorkerPool(size = 2): WorkerPool {
  const warm: Array<Promise<WorkerProcess>> = [];
  const all = new Set<WorkerProcess>();
  let count = 0;
  let closed = false;
  const fill = () => {
    while (!closed && warm.length < size) {
      const worker = spawnWorker();
      count++;
      all.add(worker);
      const ready = worker.waitFor("READY", 120_000).then(() => worker);
      ready.catch(() => {}); // a warm process killed at close; acquire() still sees the rejection
      warm.push(ready);
    }
  };
  return {
    async acquire() {
      fill();
      const next = warm.shift()!;
      fill();
      return next;
    },
    release(worker) {
      if (worker.alive() && !closed && warm.length < size) warm.unshift(Promise.resolve(worker));
      else void worker.kill();
    },
    async close() {
      closed = true;
      await Promise.allSettled([...all].map((w) => w.kill()));
    },
    spawned: () => count,
  };
}
