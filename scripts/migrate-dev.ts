// `npm run db:migrate -- <name>`: after editing prisma/models.prisma, create the migration for both
// databases (SQLite and Postgres) against throwaway databases, and regenerate both clients.
// `migrate dev` fails on a fresh database, so each throwaway database gets `migrate deploy` first.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:migrate -- <snake_case_name>");
  process.exit(2);
}
const env = { ...process.env, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" };
const prisma = (url: string, ...args: string[]) =>
  execFileSync("npx", ["prisma", ...args], { stdio: "inherit", env: { ...env, DATABASE_URL: url } });

const sqliteFile = path.join(tmpdir(), `tether-migrate-${process.pid}.db`);
prisma(`file:${sqliteFile}`, "migrate", "deploy");
prisma(`file:${sqliteFile}`, "migrate", "dev", "--name", name);
rmSync(sqliteFile, { force: true });

const pgAdmin = process.env.TETHER_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const db = `tether_migrate_${process.pid}`;
const psql = (sql: string) => execFileSync("psql", [pgAdmin, "-qc", sql], { stdio: "inherit" });
psql(`CREATE DATABASE "${db}"`);
try {
  const url = Object.assign(new URL(pgAdmin), { pathname: `/${db}` }).toString();
  prisma(url, "migrate", "deploy");
  prisma(url, "migrate", "dev", "--name", name);
} finally {
  psql(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
}
