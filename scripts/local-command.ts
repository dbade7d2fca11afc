// What the local commands (`tether create-admin`, `purge`, `export`, `import`) share: the repository's .env files
// read as the app reads them, the configured database opened from whatever directory they run in, and their exit.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { config as loadEnvFile } from "dotenv";
import { createDb, defaultDatabaseUrl, providerOf, type Db } from "../lib/db.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
loadEnvFile({ path: [path.join(root, ".env.local"), path.join(root, ".env")], quiet: true });

/** The configured database (DATABASE_URL / TETHER_DATA_DIR), a SQLite file's relative path made absolute. */
export function openConfiguredDb(): Db {
  let url = defaultDatabaseUrl();
  if (providerOf(url) === "sqlite") url = `file:${path.resolve(url.replace(/^file:(\/\/)?/, ""))}`;
  return createDb(url);
}

/**
 * Runs `main` and exits with the code it returns: Prisma's WASM timers would otherwise keep the process alive for a
 * while. What it throws exits with the code `exitCodeOf` gives (having said why), else "tether: <command> failed" and 1.
 */
export function exitWith(
  main: () => Promise<number>,
  command: string,
  exitCodeOf: (error: unknown) => number | undefined = () => undefined,
): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      const code = exitCodeOf(error);
      if (code !== undefined) process.exit(code);
      console.error(`tether: ${command} failed:`, error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
