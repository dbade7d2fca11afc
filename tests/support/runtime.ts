import { randomUUID } from "node:crypto";
import { expect, inject } from "vitest";
import { createDb } from "../../lib/db";
import {
  isAppError,
  type AgentDefinition,
  type Clock,
  type RuntimeOptions,
  type ToolDefinition,
} from "../../lib/runtime";
import { createTether } from "../../lib/tether";

// createTestRuntime(): the one place tests build an engine, on SQLite or Postgres.

export type Provider = "sqlite" | "postgres";

/** The databases this run can test against: SQLite always, Postgres when global setup created one. */
export function providers(): Array<[Provider, string]> {
  const pg = inject("postgresUrl");
  return [["sqlite", inject("sqliteUrl")], ...(pg ? [["postgres", pg] as [Provider, string]] : [])];
}

export const uid = (prefix = "t") => `${prefix}-${randomUUID().slice(0, 8)}`;

/** A clock tests can move: timers, expiries and leases all read it. */
export function manualClock(start = new Date()): Clock & { advance: (ms: number) => void; set: (d: Date) => void } {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms;
    },
    set: (d) => {
      now = d.getTime();
    },
  };
}

export function createTestRuntime(
  url: string,
  opts: { agents?: AgentDefinition[]; tools?: ToolDefinition[] } & Partial<
    Omit<RuntimeOptions, "store" | "agents" | "tools">
  > = {},
) {
  const db = createDb(url);
  const clock = opts.clock ?? { now: () => new Date() };
  const { runtime } = createTether({
    retryBaseDelayMs: 5,
    registeredTools: false,
    ...opts,
    db,
    clock,
    agents: opts.agents ?? [],
    tools: opts.tools ?? [],
  });
  return { runtime, store: runtime.store, db, clock, close: () => db.$disconnect() };
}

/** Grant an agent every tool it uses (an allow rule per tool), optionally with overrides per tool. */
export async function grant(
  runtime: ReturnType<typeof createTestRuntime>["runtime"],
  agent: AgentDefinition,
  overrides: Record<string, Record<string, unknown>> = {},
) {
  for (const tool of agent.tools) {
    await runtime.permissions.put(
      { agent: agent.slug, tool, effect: "allow", ...overrides[tool] },
      { by: "admin@test" },
    );
  }
}

/** Awaits a promise that must reject with an AppError of this code; returns the error for further checks. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read fieldErrors etc.
export async function expectError(promise: Promise<unknown>, code: string): Promise<any> {
  const error = await promise.then(
    () => null,
    (e) => e,
  );
  expect(isAppError(error), `expected AppError ${code}, got ${String(error)}`).toBe(true);
  expect(error.code).toBe(code);
  return error;
}
