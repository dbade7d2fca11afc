import pg from "pg";

// One Postgres server for every system; each peer gets a database of its own, made here and dropped
// at the end (Tether's comes from bench/support/databases.ts, which also migrates it).

export const adminUrl = () => process.env.TETHER_BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export type Scratch = { name: string; url: string; drop: () => Promise<void> };

export async function scratchDatabase(admin: pg.Client, label: string): Promise<Scratch> {
  const name = `tether_peers_${label}_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => void (await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  };
}

/** The server as configured (nothing is changed): what every figure of the run depends on. */
export async function serverSettings(admin: pg.Client) {
  const show = async (s: string) => String((await admin.query(`SHOW ${s}`)).rows[0][s]);
  return {
    version: await show("server_version"),
    fsync: await show("fsync"),
    synchronousCommit: await show("synchronous_commit"),
    walSyncMethod: await show("wal_sync_method"),
    maxConnections: await show("max_connections"),
  };
}
