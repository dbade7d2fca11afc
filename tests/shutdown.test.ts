import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { graceFor, installGracefulShutdown, type ShutdownProcess } from "../lib/lifecycle/shutdown";

// lib/lifecycle/shutdown.ts against a stand-in for `process`: its signals are events, its exit is recorded.
// Next's own SIGTERM handler is played by a second listener that calls exit(143) at once, as Next does
// once its HTTP server is closed.

function fakeProcess() {
  const emitter = new EventEmitter();
  const exits: Array<{ code: number | undefined; at: number }> = [];
  let exited!: (code: number | undefined) => void;
  const firstExit = new Promise<number | undefined>((resolve) => {
    exited = resolve;
  });
  const proc = {
    once: emitter.once.bind(emitter),
    listeners: emitter.listeners.bind(emitter),
    exit: ((code?: number) => {
      exits.push({ code, at: Date.now() });
      exited(code);
    }) as ShutdownProcess["exit"],
  } as unknown as ShutdownProcess;
  return { proc, emitter, exits, firstExit };
}

const quiet = { info() {}, warn() {}, error() {} };

describe("graceful shutdown", () => {
  it("alone with the signal: drains with the steps' share of the budget, then exits 0", async () => {
    const { proc, emitter, exits, firstExit } = fakeProcess();
    let grace = -1;
    let drainDone = 0;
    const shutdown = installGracefulShutdown({
      name: "t",
      shutdownMs: 10_000,
      logger: quiet,
      proc,
      drain: async ({ graceMs }) => {
        grace = graceMs;
        await new Promise((r) => setTimeout(r, 30));
        drainDone = Date.now();
      },
    });
    expect(shutdown.isShuttingDown).toBe(false);
    emitter.emit("SIGTERM", "SIGTERM");
    expect(shutdown.isShuttingDown).toBe(true);
    expect(await firstExit).toBe(0);
    expect(grace).toBe(graceFor(10_000));
    expect(grace).toBe(8_000);
    expect(exits).toHaveLength(1);
    expect(exits[0].at).toBeGreaterThanOrEqual(drainDone);
  });

  it("Next's handler exiting at once waits for the drain, and keeps its exit code", async () => {
    const { proc, emitter, exits, firstExit } = fakeProcess();
    let drainDone = 0;
    installGracefulShutdown({
      name: "t",
      shutdownMs: 10_000,
      logger: quiet,
      proc,
      drain: async () => {
        await new Promise((r) => setTimeout(r, 50));
        drainDone = Date.now();
      },
    });
    emitter.on("SIGTERM", () => proc.exit(143)); // Next's cleanup, registered too
    emitter.emit("SIGTERM", "SIGTERM");
    expect(exits).toEqual([]); // deferred
    expect(await firstExit).toBe(143);
    expect(drainDone).toBeGreaterThan(0);
    expect(exits[0].at).toBeGreaterThanOrEqual(drainDone);
    expect(exits).toHaveLength(1);
  });

  it("a drain that never ends: the process exits when the budget is spent", async () => {
    const { proc, emitter, firstExit } = fakeProcess();
    const started = Date.now();
    installGracefulShutdown({ name: "t", shutdownMs: 100, logger: quiet, proc, drain: () => new Promise(() => {}) });
    emitter.emit("SIGINT", "SIGINT");
    expect(await firstExit).toBe(130);
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
  });

  it("a failing drain still exits, and a second signal starts nothing new", async () => {
    const { proc, emitter, exits, firstExit } = fakeProcess();
    let drains = 0;
    installGracefulShutdown({
      name: "t",
      shutdownMs: 5_000,
      logger: quiet,
      proc,
      drain: async () => {
        drains++;
        throw new Error("database gone");
      },
    });
    emitter.emit("SIGTERM", "SIGTERM");
    emitter.emit("SIGINT", "SIGINT");
    expect(await firstExit).toBe(0);
    expect(drains).toBe(1);
    expect(exits).toHaveLength(1);
  });
});
