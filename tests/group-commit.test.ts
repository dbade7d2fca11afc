import { describe, expect, it } from "vitest";
import type { HotQuery, HotTransaction } from "../lib/store/hot-path";
import { groupCommits } from "../lib/store/group-commit";
import type { Statement } from "../lib/store/rows";

// The rules of group commit, on a fake database that records what it was sent and answers when told.

function fakeDatabase() {
  const sent: string[] = []; // "alone:x", "begin", "in:x", "commit", "rollback"
  const pending: Array<() => void> = [];
  const failing = new Set<string>();
  let failCommit = false;
  const answer = (sql: string) =>
    new Promise<unknown[]>((resolve, reject) => {
      pending.push(() => (failing.has(sql) ? reject(new Error(`${sql} failed`)) : resolve([{ sql }])));
    });
  const single: HotQuery = async <T>(s: Statement) => {
    sent.push(`alone:${s.sql}`);
    return (await answer(s.sql)) as T[];
  };
  const transaction: HotTransaction = async (work) => {
    sent.push("begin");
    try {
      const result = await work(async <T>(s: Statement) => {
        sent.push(`in:${s.sql}`);
        return (await answer(s.sql)) as T[];
      });
      if (failCommit) throw new Error("connection lost at COMMIT");
      sent.push("commit");
      return result;
    } catch (error) {
      sent.push("rollback");
      throw error;
    }
  };
  /** Answer everything sent so far, until nothing is waiting. */
  const settle = async () => {
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 0));
      const now = pending.splice(0);
      if (now.length === 0) return;
      now.forEach((go) => go());
    }
  };
  return {
    sent,
    single,
    transaction,
    failing,
    failCommitOnce: () => {
      failCommit = true;
    },
    settle,
  };
}

const st = (sql: string): Statement => ({ sql, values: [] });

describe("group commit", () => {
  it("a commit with a free lane goes at once, alone; the ones that come while every lane is busy go together in one transaction", async () => {
    const db = fakeDatabase();
    const { query, stats } = groupCommits(db.single, db.transaction);
    const results = ["a", "b", "c", "d", "e", "f"].map((x) => query(st(x)));
    await db.settle();
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d", "e", "f"].map((x) => [{ sql: x }]));
    // Three lanes: a, b, c at once; d, e, f waited and went as one transaction.
    expect(db.sent.slice(0, 3)).toEqual(["alone:a", "alone:b", "alone:c"]);
    expect(db.sent.slice(3)).toEqual(["begin", "in:d", "in:e", "in:f", "commit"]);
    expect(stats).toMatchObject({ statements: 6, transactions: 4, batched: 3, retriedAlone: 0 });
  });

  it("a statement that fails in a batch fails alone: nothing of the batch was written, each goes again on its own", async () => {
    const db = fakeDatabase();
    const { query, stats } = groupCommits(db.single, db.transaction);
    db.failing.add("y");
    const results = ["a", "b", "c", "x", "y", "z"].map((s) =>
      query(st(s)).then(
        (rows) => rows,
        (e: Error) => e.message,
      ),
    );
    await db.settle();
    expect(await Promise.all(results)).toEqual([
      [{ sql: "a" }],
      [{ sql: "b" }],
      [{ sql: "c" }],
      [{ sql: "x" }],
      "y failed",
      [{ sql: "z" }],
    ]);
    expect(db.sent.slice(3)).toEqual(["begin", "in:x", "in:y", "rollback", "alone:x", "alone:y", "alone:z"]);
    expect(stats.retriedAlone).toBe(3);
  });

  it("a failure of COMMIT itself is every caller's error, never retried: the batch may have been written", async () => {
    const db = fakeDatabase();
    const { query } = groupCommits(db.single, db.transaction);
    db.failCommitOnce();
    const results = ["a", "b", "c", "x", "y"].map((s) =>
      query(st(s)).then(
        () => "ok",
        (e: Error) => e.message,
      ),
    );
    await db.settle();
    expect(await Promise.all(results)).toEqual([
      "ok",
      "ok",
      "ok",
      "connection lost at COMMIT",
      "connection lost at COMMIT",
    ]);
    expect(db.sent.filter((s) => s.startsWith("alone:x") || s.startsWith("alone:y"))).toEqual([]);
  });
});
