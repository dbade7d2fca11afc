import "dotenv/config";
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";

// One set of models (prisma/models.prisma), two thin entry schemas + two migration folders.
// Adapted from shared/stack-reference: the embedded default lives in TETHER_DATA_DIR (./data).
// The provider is picked from DATABASE_URL: postgres://… or postgresql://… → Postgres, else SQLite.
// NB: DATABASE_URL must be set for *every* CLI command (even `prisma generate`), because the
// schema's `url = env("DATABASE_URL")` is still resolved; if it is missing Prisma falls back to
// downloading a query-engine library from binaries.prisma.sh (fails offline).
process.env.DATABASE_URL ??= `file:${path.join(process.env.TETHER_DATA_DIR ?? "./data", "tether.db")}`;
const url = process.env.DATABASE_URL;
const provider = /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";

// ---------------------------------------------------------------------------------------------
// SQLite workaround (Prisma 6.19 + adapter-better-sqlite3): the WASM schema engine replays
// migration files into the in-memory shadow DB through executeRaw(), i.e. better-sqlite3
// prepare(), which rejects multi-statement SQL -> `migrate dev` fails with P3006
// "Migration `…` failed to apply cleanly to the shadow database. Error: External error id#0".
// Route parameterless statements on the *shadow* connection through exec() instead.
function sqliteAdapter(sqliteUrl: string) {
  const factory = new PrismaBetterSQLite3({ url: sqliteUrl });
  const connectToShadowDb = factory.connectToShadowDb.bind(factory);
  factory.connectToShadowDb = async () => {
    const shadow = await connectToShadowDb();
    const executeRaw = shadow.executeRaw.bind(shadow);
    shadow.executeRaw = async (query) => {
      if (query.args.length === 0) {
        await shadow.executeScript(query.sql);
        return 0;
      }
      return executeRaw(query);
    };
    return shadow;
  };
  return factory;
}

// ---------------------------------------------------------------------------------------------
// Postgres workarounds (Prisma 6.19 + adapter-pg), CLI only:
// 1. prisma/orm#27403: adapter-pg cannot decode the catalog types `name` (OID 19) and "char"
//    (OID 18) returned by the schema engine's introspection queries -> "Column type 'name' could
//    not be deserialized from the database." Report them as TEXT (OID 25).
// 2. adapter-pg builds the shadow-DB pool as { ...config, database: shadow }, but pg lets
//    `connectionString` override `database`, so the "shadow" is silently the main DB
//    ('relation "User" already exists'). -> pass discrete connection fields.
// 3. adapter-pg drops the shadow DB before closing its pool ("database … is being accessed by
//    other users") -> re-implement connectToShadowDb (needs CREATEDB privilege).
type PgField = { dataTypeID: number };
function patchPgCatalogTypes<T extends object>(adapter: T): T {
  const proto = Object.getPrototypeOf(Object.getPrototypeOf(adapter)); // PgQueryable.prototype
  if (!proto.__catalogTypesPatched) {
    const performIO = proto.performIO;
    proto.performIO = async function (this: unknown, ...args: unknown[]) {
      const res = await performIO.apply(this, args);
      for (const r of Array.isArray(res) ? res : [res])
        // multi-statement scripts return an array
        for (const f of (r?.fields ?? []) as PgField[])
          if (f.dataTypeID === 18 || f.dataTypeID === 19) f.dataTypeID = 25;
      return res;
    };
    proto.__catalogTypesPatched = true;
  }
  return adapter;
}

function pgConfig(pgUrl: string) {
  const u = new URL(pgUrl);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.slice(1)),
    allowExitOnIdle: true, // otherwise every CLI command lingers ~10 s (pg pool idle timeout)
  };
}

function pgAdapter(pgUrl: string) {
  const config = pgConfig(pgUrl);
  const factory = new PrismaPg(config);
  const connect = factory.connect.bind(factory);
  factory.connect = async () => patchPgCatalogTypes(await connect());
  factory.connectToShadowDb = async () => {
    const main = await factory.connect();
    const database = `prisma_shadow_${crypto.randomUUID().replaceAll("-", "")}`;
    await main.executeScript(`CREATE DATABASE "${database}"`);
    const shadow = patchPgCatalogTypes(await new PrismaPg({ ...config, database }).connect());
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await main.executeScript(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await main.dispose();
    };
    return shadow;
  };
  return factory;
}

// The WASM schema engine arms timeouts (10 s advisory-lock timeout on Postgres, 60 s during
// SQLite `migrate dev`) that are never cleared, so the CLI sits idle for 10-60 s after it has
// finished. Unref timers created from inside the WASM module so the process exits promptly.
const nativeSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
  const t = nativeSetTimeout(fn, ms, ...rest);
  if ((ms ?? 0) >= 5_000 && new Error().stack?.includes("wasm://")) t.unref();
  return t;
}) as typeof setTimeout;

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", provider), // folder = multi-file schema (schema.prisma + models.prisma)
  migrations: {
    path: path.join("prisma", provider, "migrations"),
    seed: "tsx prisma/seed.ts",
  },
  async adapter() {
    return provider === "postgres" ? pgAdapter(url) : sqliteAdapter(url);
  },
});
