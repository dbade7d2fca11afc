import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../lib/config";
import { createDb, poolOf, poolSize } from "../lib/db";

// TETHER_PG_POOL_SIZE: the Postgres pool each process opens (Prisma and the hot path share it).

describe("TETHER_PG_POOL_SIZE", () => {
  const saved = process.env.TETHER_PG_POOL_SIZE;
  afterEach(() => {
    if (saved === undefined) delete process.env.TETHER_PG_POOL_SIZE;
    else process.env.TETHER_PG_POOL_SIZE = saved;
  });

  it("is pg's default of 10 when unset, the number given otherwise", () => {
    expect(poolSize(loadConfig({}))).toBe(10);
    expect(poolSize(loadConfig({ TETHER_PG_POOL_SIZE: " 32 " }))).toBe(32);
  });

  it("refuses what is not a whole number from 1 to 1000, naming the variable", () => {
    for (const bad of ["0", "-3", "2.5", "many", "1001"]) {
      expect(() => poolSize(loadConfig({ TETHER_PG_POOL_SIZE: bad }))).toThrow(
        /TETHER_PG_POOL_SIZE must be a whole number from 1 to 1000/,
      );
    }
  });

  it("sizes the pool of a Postgres client (no connection is opened to build it)", async () => {
    process.env.TETHER_PG_POOL_SIZE = "24";
    const db = createDb("postgresql://postgres@127.0.0.1:5432/tether_pool_size_unused");
    expect(poolOf(db)!.options.max).toBe(24);
    await db.$disconnect();
  });
});
