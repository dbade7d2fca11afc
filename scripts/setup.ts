// Idempotent database set-up, run before every `npm start` / `npm run dev` (and `npm run db:deploy`
// with --no-seed). A fresh clone needs no .env: without DATABASE_URL the embedded SQLite file
// <TETHER_DATA_DIR or ./data>/tether.db is created. The common case (nothing to do) stays fast:
// the applied migrations are read from the database and the Prisma CLI (~2 s) only runs when one
// is missing. The runs search index, which lives outside the migrations (lib/store/search-index.ts), is
// ensured after them on every run (a no-op once it exists). It also generates the session secret
// (<data dir>/auth-secret) when AUTH_SECRET is unset.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { config as loadEnvFile } from "dotenv";
import pg from "pg";
import { DEMO_PASSWORD, DEMO_USERS, isDemoMode } from "../lib/auth/mode.ts";
import { authSecretFile, ensureAuthSecretFile } from "../lib/auth/secret.ts";
import { createDb, defaultDatabaseUrl, providerOf, type Db, type DbProvider } from "../lib/db.ts";
import { ensureSearchIndex } from "../lib/store/search-index.ts";
import { appliedMigrations, migrationsDir, shippedMigrations } from "../lib/lifecycle/migrations.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Read the env files the app reads (variables already set win), so set-up prepares the same database.
loadEnvFile({ path: [path.join(root, ".env.local"), path.join(root, ".env")], quiet: true });
const log = (msg: string) => console.log(`[setup] ${msg}`);

async function main() {
  const seed = !process.argv.includes("--no-seed");
  ensureAuthSecret();
  const url = resolveUrl(defaultDatabaseUrl());
  const provider = providerOf(url);
  if (provider === "sqlite") mkdirSync(path.dirname(url.slice("file:".length)), { recursive: true });
  else await ensurePostgresDatabase(url);
  log(`${provider} ${redact(url)}`);

  const db = createDb(url);
  try {
    const applied = await appliedMigrations(db);
    const isFresh = applied.size === 0;
    const missing = shippedMigrations(migrationsDir(root, provider)).filter((m) => applied.get(m.name) !== m.checksum);
    if (missing.length > 0) {
      log(`applying ${missing.length} migration(s): ${missing.map((m) => m.name).join(", ")}`);
      migrateDeploy(provider, url);
    }
    if (provider === "sqlite") await enableWal(db);
    await ensureSearchIndex(db);
    // Scripts and CI authenticate with a token they choose: keep an admin token with that value.
    if (process.env.TETHER_BOOTSTRAP_TOKEN) {
      const { ensureBootstrapToken } = await import("../lib/commands/ensure-bootstrap-token.ts");
      const bootstrap = await ensureBootstrapToken({ db }, process.env.TETHER_BOOTSTRAP_TOKEN);
      log(
        bootstrap === "revoked"
          ? "TETHER_BOOTSTRAP_TOKEN was revoked and is not re-created: set a new value to have a bootstrap token again"
          : "bootstrap API token in place",
      );
    }
    if (isFresh && seed) {
      log("seeding the new database");
      const { seedDatabase } = await import("../prisma/seed.ts");
      await seedDatabase(db);
    } else if (seed && isDemoMode() && (await db.user.count()) === 0) {
      // A database made before sign-in existed: give it the demo accounts too.
      const { seedDemoUsers } = await import("../lib/commands/seed-demo-users.ts");
      await seedDemoUsers({ db });
      log(`demo accounts created (${DEMO_USERS.map((u) => u.email).join(", ")}; password ${DEMO_PASSWORD})`);
    }
    log(missing.length > 0 || isFresh ? "done" : "up to date");
  } finally {
    await db.$disconnect();
  }
}

/** Without AUTH_SECRET, the console signs sessions with a secret generated once into the data dir. */
function ensureAuthSecret() {
  if (process.env.AUTH_SECRET) return;
  const file = authSecretFile();
  const shown = path.relative(root, file).startsWith("..") ? file : path.relative(root, file);
  if (ensureAuthSecretFile(file).created)
    log(`generated the session secret in ${shown} (set AUTH_SECRET to use your own)`);
}

/** SQLite paths become absolute, so this script, the Prisma CLI and the app open the same file. */
function resolveUrl(url: string): string {
  if (providerOf(url) === "postgres") return url;
  const file = url.replace(/^file:(\/\/)?/, "");
  return `file:${path.resolve(file)}`;
}

// prisma.config.ts already picks schema and migrations folder from DATABASE_URL; --schema only
// restates it. It must agree with DATABASE_URL: a mismatch fails schema validation.
function migrateDeploy(provider: DbProvider, url: string) {
  execFileSync("npx", ["prisma", "migrate", "deploy", "--schema", `prisma/${provider}`], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
  });
}

/** WAL lets readers (the console) work while a worker commits; it is stored in the file, set once. */
async function enableWal(db: Db) {
  const [{ journal_mode: mode }] = await db.$queryRawUnsafe<Array<{ journal_mode: string }>>("PRAGMA journal_mode");
  if (mode.toLowerCase() !== "wal") await db.$queryRawUnsafe("PRAGMA journal_mode=WAL");
}

/** `prisma migrate deploy` does not create a Postgres database: create it when it is missing. */
async function ensurePostgresDatabase(url: string) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== "3D000") throw error; // 3D000: invalid_catalog_name
  } finally {
    await probe.end().catch(() => {});
  }
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    log(`created database ${name}`);
  } finally {
    await client.end();
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}

main().catch((error) => {
  console.error("[setup] failed:", error instanceof Error ? error.message : error);
  process.exit(1);
});
