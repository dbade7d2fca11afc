import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { Prisma } from "../lib/generated/sqlite/client";
import { findRunList } from "../lib/queries/run-list";
import { runSearchSql } from "../lib/queries/run-search";
import { countRunsByStatus } from "../lib/queries/run-status-counts";
import { RUN_STATUSES } from "../lib/runtime/types";
import { ensureSearchIndex, RUN_SEARCH_INDEX, RUN_SEARCH_TABLE } from "../lib/store/search-index";
import { providers, uid } from "./support/runtime";

// The runs list at size, on both databases: a text search is answered by the search index (the plans say
// so), which follows every insert, edit and delete of a run and is rebuilt when a migration rebuilt the
// Run table; counts per status are read from an index, not from the runs.

/** The plan's lines: SQLite's EXPLAIN QUERY PLAN details, or Postgres' EXPLAIN text. */
async function planOf(db: Db, provider: string, sql: Prisma.Sql): Promise<string> {
  if (provider === "sqlite") {
    const rows = await db.$queryRaw<Array<{ detail: string }>>(Prisma.sql`EXPLAIN QUERY PLAN ${sql}`);
    return rows.map((r) => r.detail).join("\n");
  }
  // With the table scan ruled out: the search asks for that itself (run-search.ts); and a test database
  // holds a few hundred runs, where reading the whole table is cheapest, so the count's plan is the one
  // a 100,000-run database gets only when the scan is set aside.
  const rows = await db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
    return tx.$queryRaw<Array<{ "QUERY PLAN": string }>>(Prisma.sql`EXPLAIN ${sql}`);
  });
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

describe.each(providers())("runs search index and counts [%s]", (provider, url) => {
  let db: Db;
  const agent = uid("search-agent");
  const runId = (n: string) => `run_${agent}_${n}`;
  const search = async (q: string) => (await findRunList(db, { agent, q })).runs.map((r) => r.id);

  async function insertRun(n: string, input: unknown) {
    await db.run.create({
      data: {
        id: runId(n),
        agentSlug: agent,
        agentVersion: "1",
        status: "COMPLETED",
        input: JSON.stringify(input),
        state: "{}",
      },
    });
  }

  beforeAll(async () => {
    db = createDb(url);
    await insertRun("a", { reason: "Parcel went to Reykjavik" });
    await insertRun("b", { reason: "Wrong size" });
  });
  afterAll(async () => {
    await db.run.deleteMany({ where: { agentSlug: agent } });
    await db.$disconnect();
  });

  it("answers a text search through the index: the FTS5 table on SQLite, the trigram index on Postgres", async () => {
    const plan = await planOf(db, provider, runSearchSql(db, { text: "reykjavik" }, 51));
    if (provider === "sqlite") expect(plan).toMatch(new RegExp(`SCAN ${RUN_SEARCH_TABLE} VIRTUAL TABLE INDEX \\d+:M`));
    else expect(plan).toMatch(new RegExp(`Bitmap Index Scan on "?${RUN_SEARCH_INDEX}"?`));
    expect(await search("reykjavik")).toEqual([runId("a")]);
  });

  it("follows the runs: a new run, an edited input and a deleted run are found as they are now", async () => {
    await insertRun("c", { reason: "Arrived in Kraków, broken" });
    expect(await search("kraków")).toEqual([runId("c")]);
    await db.run.update({ where: { id: runId("c") }, data: { input: JSON.stringify({ reason: "Arrived in Oslo" }) } });
    expect(await search("kraków")).toEqual([]);
    expect(await search("in oslo")).toEqual([runId("c")]);
    // the engine's own writes to a run (status, state) leave its input, and the index, as they were
    await db.run.update({ where: { id: runId("c") }, data: { status: "FAILED", state: '{"step":1}' } });
    expect(await search("in oslo")).toEqual([runId("c")]);
    await db.run.delete({ where: { id: runId("c") } });
    expect(await search("in oslo")).toEqual([]);
  });

  it("ensuring it again changes nothing; on SQLite, lost triggers (a rebuilt Run table) are recreated and the index rebuilt", async () => {
    await ensureSearchIndex(db);
    expect(await search("wrong size")).toEqual([runId("b")]);
    if (provider !== "sqlite") return;
    const triggers = () =>
      db.$queryRawUnsafe<Array<{ name: string }>>(
        `SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'Run' ORDER BY name`,
      );
    const before = await triggers();
    expect(before).toHaveLength(3);
    // What a migration that redefines Run leaves behind: no triggers, and runs written since unindexed.
    for (const { name } of before) await db.$executeRawUnsafe(`DROP TRIGGER "${name}"`);
    await insertRun("d", { reason: "Written while the triggers were gone" });
    expect(await search("while the triggers")).toEqual([]);
    await ensureSearchIndex(db);
    expect(await triggers()).toEqual(before);
    expect(await search("while the triggers")).toEqual([runId("d")]);
    expect(await search("reykjavik")).toEqual([runId("a")]);
  });

  it("finds text that is rare among the newest runs through the index, and text that is common among them, with the same pages", async () => {
    // More runs than the first step checks (2,000): the oldest 60 hold the text, the newest ones do not.
    const crowd = uid("crowd-agent");
    const base = Date.UTC(2029, 0, 1);
    await db.run.createMany({
      data: Array.from({ length: 2_100 }, (_, i) => ({
        id: `run_${crowd}_${String(i).padStart(4, "0")}`,
        agentSlug: crowd,
        agentVersion: "1",
        status: "COMPLETED",
        input: JSON.stringify({ reason: i < 60 ? "Parcel held at customs" : "Left at the door" }),
        state: "{}",
        createdAt: new Date(base + i * 1000),
      })),
    });
    try {
      const walk = async (q: string, pageSize: number) => {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await findRunList(db, { agent: crowd, q, cursor }, pageSize);
          seen.push(...page.runs.map((r) => r.id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        return seen;
      };
      const held = Array.from({ length: 60 }, (_, i) => `run_${crowd}_${String(59 - i).padStart(4, "0")}`);
      expect(await walk("held at CUSTOMS", 50)).toEqual(held); // found through the index: none among the newest 2,000
      expect(await walk("held at CUSTOMS", 7)).toEqual(held);
      expect(await walk("at the door", 50)).toHaveLength(2_040); // common: every page filled from the newest runs
    } finally {
      await db.run.deleteMany({ where: { agentSlug: crowd } });
    }
  });

  it("counts runs per status from an index, without reading the runs", async () => {
    const counts = await countRunsByStatus(db);
    for (const status of RUN_STATUSES) expect(counts[status]).toBe(await db.run.count({ where: { status } }));
    const plan = await planOf(db, provider, Prisma.sql`SELECT "status", COUNT(*) FROM "Run" GROUP BY "status"`);
    if (provider === "sqlite") expect(plan).toMatch(/SCAN Run USING COVERING INDEX Run_status_/);
    else expect(plan).toMatch(/Index Only Scan using "?Run_status_/);
  });
});
