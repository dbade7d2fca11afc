import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

// The parent's side of bench/support/worker-process.ts: spawn it, send it commands, wait for its lines.

export type WorkerChild = {
  child: ChildProcess;
  send: (command: string) => void;
  /** The next line (from now on, or already received and not yet taken) that starts with `prefix`. */
  next: (prefix: string, timeoutMs?: number) => Promise<string>;
  /** Called with every PROGRESS line: completed, parked, tool calls waiting. */
  onProgress: (listener: (p: { completed: number; parked: number; active: number }) => void) => void;
  kill: () => Promise<void>;
  stderr: () => string;
};

export function spawnWorkerProcess(env: Record<string, string>): WorkerChild {
  const child = spawn(process.execPath, ["--import", "tsx", "--expose-gc", "bench/support/worker-process.ts"], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const pending: string[] = [];
  const waiters: Array<{ prefix: string; resolve: (line: string) => void }> = [];
  const progress: Array<(p: { completed: number; parked: number; active: number }) => void> = [];
  let exited = false;
  const failures: Array<(e: Error) => void> = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (line.startsWith("PROGRESS ")) {
      const [completed, parked, active] = line.split(" ").slice(1).map(Number);
      for (const l of progress) l({ completed, parked, active });
      return;
    }
    if (line.startsWith("ERROR ")) {
      for (const f of failures.splice(0)) f(new Error(`worker process ${child.pid}: ${line}\n${err}`));
      return;
    }
    const i = waiters.findIndex((w) => line.startsWith(w.prefix));
    if (i >= 0) waiters.splice(i, 1)[0].resolve(line);
    else pending.push(line);
  });
  child.on("exit", (code) => {
    exited = true;
    for (const f of failures.splice(0)) f(new Error(`worker process ${child.pid} exited (${code})\n${err}`));
  });

  return {
    child,
    send: (command) => void child.stdin!.write(`${command}\n`),
    next(prefix, timeoutMs = 60_000) {
      const i = pending.findIndex((l) => l.startsWith(prefix));
      if (i >= 0) return Promise.resolve(pending.splice(i, 1)[0]);
      return new Promise((resolve, reject) => {
        if (exited) return reject(new Error(`worker process ${child.pid} has exited\n${err}`));
        const timer = setTimeout(
          () => reject(new Error(`worker process ${child.pid} did not say "${prefix}" within ${timeoutMs} ms\n${err}`)),
          timeoutMs,
        );
        const fail = (e: Error) => {
          clearTimeout(timer);
          reject(e);
        };
        failures.push(fail);
        waiters.push({
          prefix,
          resolve: (line) => {
            clearTimeout(timer);
            const k = failures.indexOf(fail);
            if (k >= 0) failures.splice(k, 1);
            resolve(line);
          },
        });
      });
    },
    onProgress: (listener) => void progress.push(listener),
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await gone;
    },
    stderr: () => err,
  };
}
