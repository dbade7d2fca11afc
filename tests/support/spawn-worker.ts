import { spawn, type ChildProcess } from "node:child_process";
import { UNTIL_MS } from "./until";

// A real worker process (tests/support/crash-worker.ts) for crash tests: it can be killed, frozen and
// resumed like any process. `waitFor` resolves with the first stdout line containing the text;
// `stderr` is what it logged so far (its warnings and errors).

export type WorkerProcess = {
  child: ChildProcess;
  waitFor: (text: string, ms?: number) => Promise<string>;
  stderr: () => string;
};

export function spawnWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/crash-worker.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const waitFor = (text: string, ms = UNTIL_MS) =>
    new Promise<string>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        const line = out.split("\n").find((l) => l.includes(text));
        if (line) {
          clearInterval(poll);
          resolve(line);
        } else if (child.exitCode !== null || Date.now() - started > Math.max(ms, UNTIL_MS)) {
          clearInterval(poll);
          reject(new Error(`worker never printed "${text}" (exit ${child.exitCode})\nstdout: ${out}\nstderr: ${err}`));
        }
      }, 20);
    });
  return { child, waitFor, stderr: () => err };
}

export async function kill(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}
