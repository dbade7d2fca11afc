import pg from "pg";

// The one-client commit floor: single-row INSERT autocommits (~1 KB, like a step's result) from one
// connection into a scratch table, as fast as they go. Each waits for its WAL flush, so this is what
// one client can commit durably on this server; a runtime beats it only by committing from several
// connections at once (group commit) or by putting several steps in one commit.

export async function commitFloor(url: string, ms: number): Promise<{ commits: number; ms: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CREATE TABLE floor (id bigserial PRIMARY KEY, body text NOT NULL)");
    const body = "x".repeat(1024);
    const insert = { name: "floor_insert", text: "INSERT INTO floor (body) VALUES ($1)", values: [body] };
    for (let i = 0; i < 200; i++) await client.query(insert); // warm-up: connection, plan, WAL segment
    let commits = 0;
    const t0 = performance.now();
    let elapsed = 0;
    while (elapsed < ms) {
      await client.query(insert);
      commits++;
      elapsed = performance.now() - t0;
    }
    return { commits, ms: elapsed };
  } finally {
    await client.end();
  }
}
