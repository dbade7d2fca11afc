// A standalone worker process (`npm run worker`): claims runnable runs from the configured database
// and drives them. Any number can share one Postgres database; each run has one owner at a time.
import { config as loadEnvFile } from "dotenv";
import { DEFAULT_CONCURRENCY } from "../lib/runtime";
import { getRuntime, startRetentionFromEnv, workerOptionsFromEnv } from "../lib/runtime.server";

loadEnvFile({ path: [".env.local", ".env"], quiet: true });

const options = workerOptionsFromEnv();
const worker = getRuntime().createWorker(options);
worker.start();
const retention = startRetentionFromEnv();
console.log(`[tether] worker ${worker.owner} started (up to ${options.concurrency ?? DEFAULT_CONCURRENCY} runs at once)`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    // Stop claiming; every run in hand finishes its step and is given back to the others.
    console.log(`[tether] worker ${worker.owner} stopping: ${worker.inFlight} runs in flight`);
    await retention.stop();
    await worker.stop();
    console.log(`[tether] worker ${worker.owner} stopped`);
    process.exit(0);
  });
}
