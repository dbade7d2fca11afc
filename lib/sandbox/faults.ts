import { z } from "zod";
import type { Db } from "@/lib/db";
import { sandboxError } from "./errors";

// Fault knobs, one per system, for tests and evals:
//   latencyMs          every request to the system waits this long first (the deploy system is "slow" this way);
//   errorRate          then fails with 503 `unavailable` with this probability, before anything is applied
//                      (1 = always; the random source is injectable, see context.ts);
//   timeoutAfterApply  the next N successful effect calls apply their effect, then hold the response for
//                      holdMs and never answer properly (see http.ts) — "a timeout after the effect was applied";
//   holdMs             how long such a response is held (default 10 s, longer than a tool's client timeout);
//   holdDeploys        deploys only: the deploy system finishes nothing on its own (deploy-clock.ts) while set —
//                      a deploy then finishes only through POST deploys/:id/complete, for tests, evals and demos
//                      that play the deploy system themselves. Releasing it lets overdue deploys finish.
// Orders and customers are part of the payment provider, so they answer to the `payments` knob.
//
// All are stored (SandboxFault), so they work across processes and restarts.

export const SANDBOX_SYSTEMS = ["payments", "mail", "deploys", "docs", "tickets", "drafts"] as const;
export type SandboxSystem = (typeof SANDBOX_SYSTEMS)[number];

export const DEFAULT_HOLD_MS = 10_000;

export type FaultKnob = {
  system: SandboxSystem;
  latencyMs: number;
  errorRate: number;
  timeoutAfterApply: number;
  holdMs: number;
  /** The deploys knob only. */
  holdDeploys?: boolean;
};

export const sandboxSystemSchema = z.enum(SANDBOX_SYSTEMS);

export const putFaultSchema = z.strictObject({
  latencyMs: z.int().min(0).max(120_000).optional(),
  errorRate: z.number().min(0).max(1).optional(),
  timeoutAfterApply: z.int().min(0).max(10_000).optional(),
  holdMs: z.int().min(0).max(600_000).optional(),
  holdDeploys: z.boolean().optional(),
});
export type PutFaultInput = z.infer<typeof putFaultSchema>;

/** Is the deploy system of this database held (holdDeploys)? */
export async function areDeploysHeld(db: Db): Promise<boolean> {
  return (
    (await db.sandboxFault.findUnique({ where: { system: "deploys" }, select: { holdDeploys: true } }))?.holdDeploys ??
    false
  );
}

function toKnob(
  system: SandboxSystem,
  row: { latencyMs: number; errorRate: number; timeoutAfterApply: number; holdMs: number; holdDeploys: boolean } | null,
): FaultKnob {
  return {
    system,
    latencyMs: row?.latencyMs ?? 0,
    errorRate: row?.errorRate ?? 0,
    timeoutAfterApply: row?.timeoutAfterApply ?? 0,
    holdMs: row?.holdMs ?? DEFAULT_HOLD_MS,
    ...(system === "deploys" ? { holdDeploys: row?.holdDeploys ?? false } : {}),
  };
}

export async function getFault(db: Db, system: SandboxSystem): Promise<FaultKnob> {
  return toKnob(system, await db.sandboxFault.findUnique({ where: { system } }));
}

export async function findFaults(db: Db): Promise<FaultKnob[]> {
  const rows = await db.sandboxFault.findMany();
  return SANDBOX_SYSTEMS.map((system) => toKnob(system, rows.find((row) => row.system === system) ?? null));
}

/** Sets the given knobs of one system; the others keep their value. */
export async function putFault(db: Db, system: SandboxSystem, input: PutFaultInput): Promise<FaultKnob> {
  if (input.holdDeploys !== undefined && system !== "deploys") {
    throw sandboxError("INVALID_INPUT", "Invalid request body: holdDeploys: only the deploys system has it.", {
      holdDeploys: ["Only the deploys system has it."],
    });
  }
  await db.sandboxFault.upsert({ where: { system }, create: { system, ...input }, update: input });
  return getFault(db, system);
}

export async function resetFaults(db: Db): Promise<void> {
  await db.sandboxFault.deleteMany();
}

/** Latency, then maybe an injected 503 — before the request touches anything. */
export async function injectFaultsBefore(
  db: Db,
  system: SandboxSystem,
  random: () => number,
  signal?: AbortSignal,
): Promise<void> {
  const knob = await getFault(db, system);
  if (knob.latencyMs > 0) await sleep(knob.latencyMs, signal);
  // A caller that gave up while we dawdled gets nothing applied (and keeps tests from acting after close).
  if (signal?.aborted) throw sandboxError("UNAVAILABLE", "The client went away before the request was handled.");
  if (knob.errorRate > 0 && (knob.errorRate >= 1 || random() < knob.errorRate)) {
    throw sandboxError(
      "UNAVAILABLE",
      `The ${system} system is temporarily unavailable (injected fault). Nothing was applied.`,
    );
  }
}

/**
 * Consumes one `timeoutAfterApply` (compare-and-set, so N concurrent calls lose exactly N responses).
 * Returns how long to hold the lost response, or null when this response gets through.
 */
export async function takeLostResponse(db: Db, system: SandboxSystem): Promise<number | null> {
  const { count } = await db.sandboxFault.updateMany({
    where: { system, timeoutAfterApply: { gt: 0 } },
    data: { timeoutAfterApply: { decrement: 1 } },
  });
  return count > 0 ? (await getFault(db, system)).holdMs : null;
}

/** Resolves after ms, or early (without error) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
