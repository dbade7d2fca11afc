import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, poolOf, type Db } from "../lib/db";
import { arrayLiteral, hotQuery, textArray, type HotQuery } from "../lib/store/hot-path";
import { providers } from "./support/runtime";

// The hot path writes an array parameter itself: an array of strings in Postgres's binary array format, any
// other as an array literal (JSON.stringify, not node-pg's escaping). Postgres must read from either exactly
// the array node-pg's own conversion sends.

const postgres = providers().filter(([provider]) => provider === "postgres");

/** A random string of the characters an array literal or JSON treats specially, and some that neither does. */
function randomText(random: () => number): string {
  const alphabet = [
    '"',
    "\\",
    "{",
    "}",
    ",",
    " ",
    "'",
    "\n",
    "\t",
    "\u0001",
    "é",
    "中",
    "😀",
    "\ud800",
    "\udc00",
    "a",
    "NULL",
  ];
  const length = Math.floor(random() * 12);
  return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
}

/** A small seeded generator: a failure names the arrays that failed, the same on every run. */
function seeded(seed: number) {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

describe.skipIf(postgres.length === 0).each(postgres)("array parameters [%s]", (_provider, url) => {
  let db: Db;
  let query: HotQuery;
  beforeAll(() => {
    db = createDb(url);
    query = hotQuery(db);
  });
  afterAll(() => db.$disconnect());

  /** The array Postgres reads from node-pg's own conversion of `values`. */
  const asNodePgSendsIt = async (values: unknown[], type: string) =>
    (await poolOf(db)!.query(`SELECT $1::${type} AS "a"`, [values])).rows[0].a as unknown[];
  const asSent = async (values: unknown[], type: string) =>
    (await query<{ a: unknown[] }>({ sql: `SELECT $1::${type} AS "a"`, values: [values] }))[0].a;

  it("reads the same text[] and int[] as node-pg sends, for the shapes a commit sends", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "text[]"],
      [[JSON.stringify({ a: 'quote " and \\ backslash', b: [1, 2], c: null, d: "line\nbreak", e: "😀 é" })], "text[]"],
      [["fact", null, undefined, "", "NULL", "null", "{a,b}", " padded "], "text[]"],
      [[1, 2, -3, 0, 2_147_483_647], "int[]"],
      [[1, null], "int[]"],
      [[null, null], "text[]"],
      [[null, null], "int[]"],
    ];
    for (const [values, type] of cases) expect(await asSent(values, type)).toEqual(await asNodePgSendsIt(values, type));
    // The commit's JSON goes in binary; its event steps as a literal.
    expect(textArray(cases[1][0])).toBeInstanceOf(Buffer);
    expect(textArray(cases[3][0])).toBeNull();
    expect(arrayLiteral(cases[3][0])).toEqual(expect.any(String));
  });

  it("reads the same text[] as node-pg sends for random strings of the characters either treats specially", async () => {
    const random = seeded(21);
    for (let round = 0; round < 200; round++) {
      const values = Array.from({ length: 1 + Math.floor(random() * 4) }, () => randomText(random));
      expect({ values, read: await asSent(values, "text[]") }).toEqual({
        values,
        read: await asNodePgSendsIt(values, "text[]"),
      });
    }
  });
});
