// `npx tether purge`: runs retention once against the configured database (DATABASE_URL / TETHER_DATA_DIR,
// .env files read like the app does): finished runs older than TETHER_RETENTION_DAYS are compacted
// (lib/retention/purge-finished-runs.ts), schedule fires older than that are deleted but each schedule's
// newest (lib/retention/purge-schedule-fires.ts), and the counts are printed. With the variable unset or 0,
// retention is off and nothing is touched. bin/tether.mjs runs scripts/setup.ts --no-seed first.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { config as loadEnvFile } from "dotenv";
import { createDb, defaultDatabaseUrl, providerOf } from "../lib/db.ts";
import { purgeFinishedRuns } from "../lib/retention/purge-finished-runs.ts";
import { DEFAULT_KEPT_FIRES, purgeScheduleFires } from "../lib/retention/purge-schedule-fires.ts";
import { retentionDaysFromEnv } from "../lib/retention/start-retention.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
loadEnvFile({ path: [path.join(root, ".env.local"), path.join(root, ".env")], quiet: true });

async function main(): Promise<number> {
  const retentionDays = retentionDaysFromEnv();
  if (retentionDays === 0) {
    console.log("retention is off (TETHER_RETENTION_DAYS is unset or 0): finished runs are kept whole; nothing purged");
    return 0;
  }
  let url = defaultDatabaseUrl();
  if (providerOf(url) === "sqlite") url = `file:${path.resolve(url.replace(/^file:(\/\/)?/, ""))}`;
  const db = createDb(url);
  try {
    const started = Date.now();
    const now = new Date();
    const result = await purgeFinishedRuns(db, { now, retentionDays });
    console.log(
      `compacted ${result.runs} finished run(s) older than ${retentionDays} day(s): deleted ${result.checkpointsDeleted} checkpoint(s) and ${result.eventsDeleted} trace event(s) in ${Date.now() - started} ms`,
    );
    const firesStarted = Date.now();
    const fires = await purgeScheduleFires(db, { now, retentionDays });
    console.log(
      `deleted ${fires} schedule fire(s) older than ${retentionDays} day(s), keeping each schedule's newest ${DEFAULT_KEPT_FIRES}, in ${Date.now() - firesStarted} ms`,
    );
    return 0;
  } finally {
    await db.$disconnect();
  }
}

main().then(
  (code) => process.exit(code), // Prisma's WASM timers would otherwise keep the process alive for a while
  (error: unknown) => {
    console.error("tether: purge failed:", error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
