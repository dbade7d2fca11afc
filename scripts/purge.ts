// `npx tether purge`: runs retention once against the configured database (DATABASE_URL / TETHER_DATA_DIR,
// .env files read like the app does): finished runs older than TETHER_RETENTION_DAYS are compacted
// (lib/retention/purge-finished-runs.ts), schedule fires older than that are deleted but each schedule's
// newest (lib/retention/purge-schedule-fires.ts), and the counts are printed. With the variable unset or 0,
// retention is off and nothing is touched. bin/tether.mjs runs scripts/setup.ts --no-seed first.
import { purgeFinishedRuns } from "../lib/retention/purge-finished-runs.ts";
import { DEFAULT_KEPT_FIRES, purgeScheduleFires } from "../lib/retention/purge-schedule-fires.ts";
import { retentionDaysFromEnv } from "../lib/retention/start-retention.ts";
import { exitWith, openConfiguredDb } from "./local-command.ts";

async function main(): Promise<number> {
  const retentionDays = retentionDaysFromEnv();
  if (retentionDays === 0) {
    console.log("retention is off (TETHER_RETENTION_DAYS is unset or 0): finished runs are kept whole; nothing purged");
    return 0;
  }
  const db = openConfiguredDb();
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

exitWith(main, "purge");
