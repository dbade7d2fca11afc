// A standalone worker process (`npm run worker`): claims runnable runs from the configured database
// and drives them. Any number can share one Postgres database; each run has one owner at a time.
// The built-in tools reach the console's sandbox world (TETHER_SANDBOX_URL, default this machine's
// port $PORT) with the sandbox's internal credential (lib/sandbox/internal-key.ts): on this machine the
// data directory's generated one, shared with the console; on another machine set TETHER_SANDBOX_SECRET
// (and TETHER_SANDBOX, as the console has it) to the console's values. A bad TETHER_SANDBOX stops it.
import { config as loadEnvFile } from "dotenv";
import { DEFAULT_CONCURRENCY } from "../lib/runtime";
import {
  consoleLogger,
  getRuntime,
  startNotificationsFromEnv,
  startRetentionFromEnv,
  startSchedules,
  workerOptionsFromEnv,
} from "../lib/runtime.server";
import { shutdownTraceExport } from "../lib/telemetry";
import { getConfig } from "../lib/config";
import { installGracefulShutdown } from "../lib/lifecycle/shutdown";

loadEnvFile({ path: [".env.local", ".env"], quiet: true });

let runtime: ReturnType<typeof getRuntime>;
let options: ReturnType<typeof workerOptionsFromEnv>;
try {
  options = workerOptionsFromEnv();
  runtime = getRuntime(); // reads TETHER_SANDBOX (and the model settings)
} catch (error) {
  console.error(`[tether] worker not started: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const worker = runtime.createWorker(options);
worker.start();
const retention = startRetentionFromEnv();
const notifications = startNotificationsFromEnv();
const schedules = startSchedules(worker.owner);

// SIGTERM/SIGINT: stop claiming; every run in hand finishes its step and is given back to the others at
// once (not after TETHER_LEASE_MS); the process exits within TETHER_SHUTDOWN_MS (lib/lifecycle/shutdown.ts).
installGracefulShutdown({
  name: `worker ${worker.owner}`,
  shutdownMs: getConfig().worker.shutdownMs,
  logger: consoleLogger,
  drain: async ({ graceMs }) => {
    console.log(`[tether] worker ${worker.owner} stopping: ${worker.inFlight} runs in flight`);
    await Promise.all([retention.stop(), notifications.stop(), schedules.stop(), worker.stop({ graceMs })]);
    await shutdownTraceExport(); // the spans of the last steps go out before the process does
    console.log(`[tether] worker ${worker.owner} stopped`);
  },
});
// Said once the drain is in place: a SIGTERM from here on drains.
console.log(
  `[tether] worker ${worker.owner} started (up to ${options.concurrency ?? DEFAULT_CONCURRENCY} runs at once)`,
);
