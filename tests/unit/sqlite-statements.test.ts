import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { keepPreparedStatements } from "../../lib/sqlite-statements";

// The calls Prisma's better-sqlite3 adapter makes on its connection (prepare(sql).bind(values), then run / reader /
// columns / raw().all(); prepare("BEGIN").run()), served from kept statements: each call's own values, every time.

type Adapterish = {
  prepare(sql: string): {
    reader: boolean;
    run(): unknown;
    bind(values: unknown[]): {
      reader: boolean;
      run(): { changes: number };
      columns(): Array<{ name: string }>;
      raw(): { all(): unknown[][] };
    };
  };
};

function connection() {
  const client = new Database(":memory:");
  client.exec(`CREATE TABLE t (a INTEGER, b TEXT)`);
  keepPreparedStatements({ client });
  return client as unknown as Adapterish & { close(): void };
}

describe("keepPreparedStatements", () => {
  it("binds each call's values to the kept statement, for writes and reads alike", () => {
    const db = connection();
    const insert = `INSERT INTO t (a, b) VALUES (?, ?)`;
    expect(db.prepare(insert).bind([1, "x"]).run().changes).toBe(1);
    expect(db.prepare(insert).bind([2, "y"]).run().changes).toBe(1);
    const select = db.prepare(`SELECT a, b FROM t WHERE a >= ? ORDER BY a`).bind([2]);
    expect(select.reader).toBe(true);
    expect(select.columns().map((c) => c.name)).toEqual(["a", "b"]);
    expect(select.raw().all()).toEqual([[2, "y"]]);
    expect(db.prepare(`SELECT a, b FROM t WHERE a >= ? ORDER BY a`).bind([1]).raw().all()).toEqual([
      [1, "x"],
      [2, "y"],
    ]);
    db.close();
  });

  it("runs a transaction's BEGIN unbound, and rolls back what it wrote", () => {
    const db = connection();
    db.prepare("BEGIN").run();
    db.prepare(`INSERT INTO t (a, b) VALUES (?, ?)`).bind([3, "z"]).run();
    db.prepare("ROLLBACK").bind([]).run();
    expect(db.prepare(`SELECT count(*) FROM t`).bind([]).raw().all()).toEqual([[0]]);
    db.close();
  });

  it("lets the oldest statements go past the ones it keeps, and prepares them again when asked", () => {
    const db = connection();
    for (let i = 0; i < 600; i++) db.prepare(`INSERT INTO t (a, b) VALUES (?, ? || '${i}')`).bind([i, "v"]).run();
    expect(db.prepare(`INSERT INTO t (a, b) VALUES (?, ? || '0')`).bind([600, "w"]).run().changes).toBe(1);
    expect(db.prepare(`SELECT b FROM t WHERE a IN (?, ?) ORDER BY a`).bind([0, 600]).raw().all()).toEqual([
      ["v0"],
      ["w0"],
    ]);
    db.close();
  });
});
