import { spawn } from "node:child_process";
import { kill } from "./spawn-worker";
import { UNTIL_MS } from "./until";

// Starts tests/support/console-process.ts as a real process (a console replica) and resolves with its
// URL once it serves; `close` kills it.

export type ConsoleProcess = { url: string; close: () => Promise<void> };

/** Fails if the process has not served within `ms` or UNTIL_MS (raised on a machine known to be slow), whichever is longer. */
export function spawnConsole(env: Record<string, string>, ms = 30_000): Promise<ConsoleProcess> {
  const ceiling = Math.max(ms, UNTIL_MS);
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/console-process.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void kill(child);
      reject(new Error(`console process did not start in ${ceiling} ms\nstdout: ${out}\nstderr: ${err}`));
    }, ceiling);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`console process exited (${code}) before serving\nstdout: ${out}\nstderr: ${err}`));
    });
    child.stdout!.on("data", (d) => {
      out += d;
      const url = /LISTENING (\S+)/.exec(out)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve({ url, close: () => kill(child) });
    });
  });
}
