import { afterEach, describe, expect, it, vi } from "vitest";

// The tests' one wait (tests/support/until.ts): it returns what it waited for, and a wait that fails says
// what it waited for and what it last saw. UNTIL_MS is read when the module loads, so each test loads it afresh.

async function loadUntil(untilMs: string) {
  vi.resetModules();
  vi.stubEnv("UNTIL_MS", untilMs);
  return import("../support/until");
}

describe("until", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("returns the first value that holds, read again until then", async () => {
    const { until } = await loadUntil("5000");
    let reads = 0;
    const seen = await until(() => ++reads, { what: "three reads", holds: (n) => n >= 3 });
    expect(seen).toBe(3);
    expect(await until("a check that holds at once", () => true)).toBe(true);
  });

  it("past its ceiling fails naming what it waited for and the last value it read", async () => {
    const { until, UntilTimeout } = await loadUntil("50");
    let reads = 0;
    const waiting = until(() => ({ status: "RUNNING", reads: ++reads }), {
      what: "the run completes",
      holds: (r) => r.status === "COMPLETED",
    });
    await expect(waiting).rejects.toThrow(UntilTimeout);
    await expect(waiting).rejects.toThrow(
      /timed out after 50 ms waiting until the run completes; last saw: \{ status: 'RUNNING', reads: \d+ \}/,
    );
    expect(reads).toBeGreaterThan(1);
  });

  it("a ceiling asked for beyond UNTIL_MS is kept; one below it is raised to it", async () => {
    const { until } = await loadUntil("50");
    const started = Date.now();
    await expect(until(() => false, { what: "never", ceilingMs: 200 })).rejects.toThrow(/after 200 ms/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    await expect(until("never, briefly", () => false, 10)).rejects.toThrow(/after 50 ms waiting until never, briefly/);
  });

  it("a read that throws fails the wait at once, with its own error", async () => {
    const { until } = await loadUntil("5000");
    await expect(
      until(
        () => {
          throw new Error("the database is gone");
        },
        { what: "anything" },
      ),
    ).rejects.toThrow("the database is gone");
  });
});
