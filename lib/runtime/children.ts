import type { EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { fieldErrorsFromIssues } from "./errors";
import { newRunState, runCreatedEvent } from "./new-run";
import type { Pending } from "./state";
import { TERMINAL_STATUSES, type AgentDefinition, type Decision, type RunRecord, type RunStatus } from "./types";

// Child runs: a step starts a run of another agent and waits for it (docs/agents.md, "Child runs").
//
// - Idempotent across crashes: the child's idempotency key is derived from (parent run, step, index), so a
//   parent step that crashed after starting the child and is taken again finds the same child, never a second.
// - Durable: the parent parks WAITING_EVENT on the type `child:<childRunId>` (no lease, no compute). The
//   child's last commit wakes it in the same transaction (StepCommit.wakeRun: a crash right after cannot
//   lose it), and a signal of that type follows the commit, for a parent parking at that very moment (its
//   park sees the signal, as for any event). Both are wake-ups only: the parent reads the child's run itself.
//   A child cancelled by hand wakes its parent in the cancel's transaction the same way. A backstop timer
//   covers what is left (a parent that parked as the child ended, and a crash took the signal): the parent
//   looks at the child after childCheckMs, then twice as long each time (at most a day), so a child that
//   waits a week for a person costs its parent a dozen looks, not thousands.
// - The child's outcome becomes a receipt fact of the parent under `child:<childRunId>`.

type SpawnDecision = Extract<Decision, { kind: "spawn" }>;
type ChildPending = Extract<Pending, { kind: "child" }>;

/** The key a child run is started under: the same for every attempt of the parent's step. */
export function childIdempotencyKey(parentRunId: string, step: number, index = 0): string {
  return `spawn:${parentRunId}:${step}:${index}`;
}

/** The signal type (and the fact key) a parent waits for / records its child under. */
export const childSignalType = (childRunId: string) => `child:${childRunId}`;

/** What a parent records of a child that ended: a receipt fact's value. */
export type ChildOutcome = { runId: string; agent: string; status: RunStatus; output?: unknown; error?: string | null };

export async function spawnChild(
  ctx: EngineContext,
  cursor: RunCursor,
  parent: AgentDefinition,
  decision: SpawnDecision,
): Promise<StepOutcome> {
  const what = `spawn:${decision.agent}`;
  // Least authority: an agent starts only the agents its definition names.
  if (!(parent.spawns ?? []).includes(decision.agent))
    return refuse(
      cursor,
      what,
      `${parent.slug} may not start runs of ${decision.agent} (its spawns: ${(parent.spawns ?? []).join(", ") || "none"})`,
      "SPAWN_NOT_ALLOWED",
    );
  const agent = ctx.agents.get(decision.agent);
  if (!agent) return refuse(cursor, what, `there is no agent called "${decision.agent}" to start`, "UNKNOWN_AGENT");
  const input = agent.input.safeParse(decision.input);
  if (!input.success)
    return refuse(
      cursor,
      what,
      `the input does not match ${agent.slug}'s input schema`,
      "INVALID_ARGS",
      fieldErrorsFromIssues(input.error.issues),
    );
  cursor.assertHeld(); // a worker that lost the run starts nothing (the child would be the same one, but nobody waits for it here)

  const key = childIdempotencyKey(cursor.runId, cursor.step);
  const state = newRunState(agent, input.data ?? null);
  const startedBy = cursor.run.startedBy;
  const { run: child, created } = await ctx.store.createRun({
    id: ctx.ids.id("run"),
    agentSlug: agent.slug,
    agentVersion: agent.version,
    input: input.data ?? null,
    state,
    idempotencyKey: key,
    startedBy,
    parentRunId: null,
    spawnedByRunId: cursor.runId,
    spawnedAtStep: cursor.step,
    workspaceId: cursor.run.workspaceId, // a child is its parent's workspace's, and so are its packets
    events: [
      runCreatedEvent(agent, state, startedBy),
      {
        type: "run.spawned_by",
        step: 0,
        data: { parentRunId: cursor.runId, parentStep: cursor.step, parentAgent: cursor.run.agentSlug },
      },
    ],
  });
  // The key is derived, but a caller could have taken it for a run of its own: that run is not this step's child.
  if (child.spawnedByRunId !== cursor.runId)
    return refuse(
      cursor,
      what,
      `the child's key ${key} is taken by run ${child.id}, which this run did not start`,
      "CONFLICT",
    );
  await ctx.fault("after-spawn", { runId: cursor.runId, step: cursor.step, tool: what });

  cursor.state.pending = { kind: "child", childRunId: child.id, agent: agent.slug, step: cursor.step, checks: 0 };
  cursor.event("child.started", {
    childRunId: child.id,
    agent: agent.slug,
    version: agent.version,
    idempotencyKey: key,
    created,
    reason: decision.reason ?? null,
  });
  return waitForChild(ctx, cursor, child.id, 0);
}

/** The parent's step after a wake-up: the child ended (record its outcome) or it waits on. */
export async function resumeChild(ctx: EngineContext, cursor: RunCursor, pending: ChildPending): Promise<StepOutcome> {
  const child = await ctx.store.getRun(pending.childRunId);
  if (child && !TERMINAL_STATUSES.includes(child.status)) {
    const checks = pending.checks + 1;
    cursor.state.pending = { ...pending, checks };
    return waitForChild(ctx, cursor, child.id, checks);
  }
  const outcome: ChildOutcome = child
    ? {
        runId: child.id,
        agent: child.agentSlug,
        status: child.status,
        ...(child.status === "COMPLETED" ? { output: child.state.output ?? null } : {}),
        ...(child.error ? { error: child.error } : {}),
      }
    : { runId: pending.childRunId, agent: pending.agent, status: "CANCELLED", error: "the child run no longer exists" };
  const signals = await cursor.signals(childSignalType(pending.childRunId));
  cursor.addFact({
    key: childSignalType(outcome.runId),
    value: outcome,
    kind: "receipt",
    source: { receiptId: outcome.runId },
  });
  cursor.event("child.completed", {
    childRunId: outcome.runId,
    agent: outcome.agent,
    status: outcome.status,
    ...(outcome.error ? { error: outcome.error } : {}),
  });
  cursor.observe({
    kind: "child",
    message: `Child run ${outcome.runId} (${outcome.agent}) ended ${outcome.status}${outcome.error ? `: ${outcome.error}` : ""}`,
    data: outcome,
  });
  cursor.finishStep();
  return cursor.commit({ status: "RUNNING", consumeSignalIds: signals.map((s) => s.id) });
}

const MAX_CHILD_CHECK_MS = 24 * 60 * 60_000;

/** Park on the child's signal; the store wakes the parent at once if the child already ended and said so. */
function waitForChild(ctx: EngineContext, cursor: RunCursor, childRunId: string, checks: number): Promise<StepOutcome> {
  const backstopMs = Math.min(ctx.childCheckMs * 2 ** Math.min(checks, 30), MAX_CHILD_CHECK_MS);
  return cursor.park("WAITING_EVENT", {
    waitingFor: childSignalType(childRunId),
    wakeAt: new Date(cursor.now().getTime() + backstopMs),
  });
}

/**
 * A child ended: tell its parent by a signal, after the child's own commit (which already woke a parked
 * parent): a parent parking at that moment sees it. Best effort — the backstop timer covers a crash in
 * between. A wake-up only; the parent reads the outcome from the child's run.
 */
export async function notifyParent(
  ctx: EngineContext,
  child: Pick<RunRecord, "id" | "spawnedByRunId">,
  status: RunStatus,
): Promise<void> {
  if (!child.spawnedByRunId) return;
  const type = childSignalType(child.id);
  try {
    await ctx.store.deliverSignal({
      id: ctx.ids.id("sig"),
      runId: child.spawnedByRunId,
      type,
      dedupKey: `${type}:ended`,
      payload: { status },
      now: ctx.clock.now(),
    });
  } catch (error) {
    ctx.logger.warn("could not wake the parent of a child run; its backstop timer will", {
      childRunId: child.id,
      parentRunId: child.spawnedByRunId,
      error: String(error),
    });
  }
}

/**
 * Cancel a run's children that are still going (and theirs: each cancel cascades). A child that ends meanwhile
 * is left as it ended. `cancel` is the engine's cancelRun.
 */
export async function cancelChildren(
  ctx: EngineContext,
  parentRunId: string,
  cancel: (childRunId: string) => Promise<unknown>,
): Promise<string[]> {
  const active = (await ctx.store.findRuns({ spawnedByRunId: parentRunId, limit: 1000 })).filter(
    (r) => !TERMINAL_STATUSES.includes(r.status),
  );
  const cancelled: string[] = [];
  for (const child of active) {
    try {
      await cancel(child.id);
      cancelled.push(child.id);
    } catch (error) {
      if ((error as { code?: string }).code !== "RUN_NOT_WAITING") throw error; // it ended meanwhile
    }
  }
  return cancelled;
}

/**
 * A child whose parent was cancelled ends too, when it is next stepped: the cancel's cascade (engine
 * cancelRun) may not have reached it (a crash between the parent's cancel and its children's). Read once a claim.
 */
export async function endIfOrphaned(ctx: EngineContext, cursor: RunCursor): Promise<StepOutcome | null> {
  const parentId = cursor.run.spawnedByRunId;
  if (!parentId || cursor.parentChecked) return null;
  cursor.parentChecked = true;
  const parent = await ctx.store.getRun(parentId).catch(() => null);
  if (parent?.status !== "CANCELLED") return null;
  cursor.event("run.cancelled", { by: "tether", reason: `its parent run ${parentId} was cancelled`, cascaded: true });
  return cursor.finish("CANCELLED");
}

function refuse(
  cursor: RunCursor,
  what: string,
  why: string,
  code: string,
  fieldErrors?: Record<string, string[]>,
): Promise<StepOutcome> {
  cursor.event("child.refused", { spawn: what, code, why, ...(fieldErrors ? { fieldErrors } : {}) });
  cursor.observe({
    kind: "tool_error",
    tool: what,
    message: `Could not start a child run: ${why}`,
    data: { code, fieldErrors },
  });
  cursor.state.consecutiveErrors += 1;
  cursor.finishStep();
  return cursor.commit({ status: "RUNNING" });
}
