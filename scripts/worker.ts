// A standalone worker process (`npm run worker`): claims runnable runs from the configured database
// and drives them. Any number can share one Postgres database; each run has one owner at a time.
import { config as loadEnvFile } from "dotenv";
import { getRuntime } from "../lib/runtime.server";

loadEnvFile({ path: [".env.local", ".env"], quiet: true });

const worker = getRuntime().createWorker({
  leaseMs: Number(process.env.TETHER_LEASE_MS ?? 30_000),
  pollMs: Number(process.env.TETHER_POLL_MS ?? 250),
});
worker.start();
console.log(`[tether] worker ${worker.owner} started`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    // Finish the step in hand; its lease is released or expires, and another worker resumes the run.
    await worker.stop();
    console.log(`[tether] worker ${worker.owner} stopped`);
    process.exit(0);
  });
}
