import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "../lib/db";
import { getRuntime } from "../lib/runtime.server";
import { providers } from "./support/runtime";

// The console's and `npm run worker`'s runtime (lib/runtime.server.ts) takes its engine options from the
// configuration: TETHER_CARRY_READS=off gives a commit every step.

const [[, sqliteUrl]] = providers();
const saved = { url: process.env.DATABASE_URL, carry: process.env.TETHER_CARRY_READS };

describe("the console's runtime", () => {
  afterAll(() => {
    for (const [name, value] of [
      ["DATABASE_URL", saved.url],
      ["TETHER_CARRY_READS", saved.carry],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  });

  it("TETHER_CARRY_READS=off: the engine is built to commit every step (carryReads: false)", async () => {
    process.env.DATABASE_URL = sqliteUrl;
    process.env.TETHER_CARRY_READS = "off";
    expect(getRuntime().context.carryReads).toBe(false);
    await getDb().$disconnect();
  });
});
