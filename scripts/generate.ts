// Generates both Prisma clients (SQLite and Postgres) so one build runs on either database.
// DATABASE_URL must be set for every Prisma CLI command, or Prisma tries to download an engine.
import { execFileSync } from "node:child_process";

for (const [provider, url] of [
  ["sqlite", "file:./data/tether.db"],
  ["postgres", "postgresql://postgres@127.0.0.1:5432/postgres"],
] as const) {
  execFileSync("npx", ["prisma", "generate", "--schema", `prisma/${provider}`], {
    stdio: "inherit",
    env: { ...process.env, DATABASE_URL: url, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" },
  });
}
