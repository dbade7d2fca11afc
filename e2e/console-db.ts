import Database from "better-sqlite3";
import { e2eDatabaseUrl } from "./fixtures";

// The console's own SQLite file, opened by a spec beside the running server, whose engine writes to it too.
// With better-sqlite3: Playwright's runner cannot load Prisma's generated client.

/** Opens the e2e server's database; a write waits up to 10 s for the server to release its write lock. */
export function openConsoleDatabase(): Database.Database {
  return new Database(e2eDatabaseUrl().slice("file:".length), { timeout: 10_000 });
}

/** How long a spec's write keeps trying while the server holds the database. */
const WRITE_PATIENCE_MS = 30_000;

/**
 * Runs `write` in one transaction that takes the write lock at its start (BEGIN IMMEDIATE), waiting for the
 * server to release it. CI once saw a spec's deferred bulk insert fail at once with "database is locked"
 * (SQLITE_BUSY without the busy timeout being waited out) beside the server's worker: a transaction SQLite
 * refuses as busy is tried again, whole, until WRITE_PATIENCE_MS, then the last error is thrown.
 */
export function writeInOneTransaction(db: Database.Database, write: () => void): void {
  const transaction = db.transaction(write);
  const giveUpAt = Date.now() + WRITE_PATIENCE_MS;
  for (;;) {
    try {
      return transaction.immediate();
    } catch (error) {
      const busy = String((error as { code?: unknown }).code).startsWith("SQLITE_BUSY");
      if (!busy || Date.now() > giveUpAt) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50); // a pause before trying again, not a spin
    }
  }
}

/** A date as Prisma's SQLite adapter stores it, so the console reads these rows as it reads its own. */
export const storedDate = (at: Date | number) => new Date(at).toISOString().replace("Z", "+00:00");
