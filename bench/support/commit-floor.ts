import pg from "pg";
import { ignore } from "./counters";

// The one-client commit floor of this Postgres: single-row autocommit INSERTs (~1 KB, like a step's
// result) from ONE pg client into a scratch table of the bench database, as fast as they go. Each
// waits for its WAL flush (fsync), so this is what one connection can commit durably here, measured
// in the same run as the figures it is compared with.

export async function commitFloor(url: string, ms: number): Promise<{ commits: number; ms: number; perSec: number }> {
  const client = new pg.Client({ connectionString: url });
  ignore(client); // not the engine's statements
  await client.connect();
  try {
    await client.query("CREATE TABLE IF NOT EXISTS bench_commit_floor (id bigserial PRIMARY KEY, body text NOT NULL)");
    const insert = {
      name: "bench_floor_insert",
      text: "INSERT INTO bench_commit_floor (body) VALUES ($1)",
      values: ["x".repeat(1024)],
    };
    for (let i = 0; i < 200; i++) await client.query(insert); // warm-up: connection, plan, WAL segment
    let commits = 0;
    const t0 = performance.now();
    let elapsed = 0;
    while (elapsed < ms) {
      await client.query(insert);
      commits++;
      elapsed = performance.now() - t0;
    }
    return { commits, ms: elapsed, perSec: commits / (elapsed / 1000) };
  } finally {
    await client.query("DROP TABLE IF EXISTS bench_commit_floor").catch(() => {});
    await client.end();
  }
}
