import Database from "better-sqlite3";
import { e2eDatabaseUrl } from "./fixtures";

// The console's own SQLite file, opened by a spec beside the running server, whose engine writes to it too.
// With better-sqlite3: Playwright's runner cannot load Prisma's generated client.

/** Opens the e2e server's database; a write waits up to 10 s for the server to release its write lock. */
export function openConsoleDatabase(): Database.Database {
  return new Database(e2eDatabaseUrl().slice("file:".length), { timeout: 10_000 });
}

/**
 * Runs `write` in one transaction that takes the write lock before it reads anything (BEGIN IMMEDIATE). A
 * deferred transaction that has read (preparing a statement reads the schema) cannot wait for the lock: when
 * the server holds it, SQLite fails it at once with "database is locked" instead of waiting out the timeout.
 */
export function writeInOneTransaction(db: Database.Database, write: () => void): void {
  db.transaction(write).immediate();
}

/** A date as Prisma's SQLite adapter stores it, so the console reads these rows as it reads its own. */
export const storedDate = (at: Date | number) => new Date(at).toISOString().replace("Z", "+00:00");
