// The health probes (app/api/health/**) against the running console: its own database, its embedded worker,
// its shutdown. The routes hold no database client; what they check is here.
import { defaultDatabaseUrl, getDb, providerOf, type DbProvider } from "@/lib/db";
import { embeddedWorkerStatus, isShuttingDown } from "@/lib/runtime.server";
import { migrationsDir } from "./migrations";
import { checkReadiness, type Readiness } from "./readiness";

/** Liveness: the database answers a `SELECT 1` (a failure throws); → which database it is. */
export async function checkDatabase(): Promise<DbProvider> {
  await getDb().$queryRawUnsafe("SELECT 1");
  return providerOf(defaultDatabaseUrl());
}

/** Readiness (./readiness.ts) of this console process. */
export async function checkConsoleReadiness(): Promise<Readiness> {
  const provider = providerOf(defaultDatabaseUrl());
  return checkReadiness({
    db: getDb(),
    provider,
    // The standalone server runs from its own folder, where the image puts prisma/ beside server.js.
    migrationsDir: migrationsDir(process.cwd(), provider),
    worker: embeddedWorkerStatus(),
    isShuttingDown: isShuttingDown(),
  });
}
