import { parkVersionGone, resumeVersionGone } from "./agent-version-gone";
import { parkAtBudget, resumeBudget, spendBudgetReached, toolCallBudgetReached } from "./budget";
import { endIfOrphaned, resumeChild, spawnChild } from "./children";
import { findTool, runTool, type EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { performRead, recoverEffect, startEffect } from "./effects";
import { fieldErrorsFromIssues } from "./errors";
import { inferenceKeyFor } from "./fact-keys";
import { requestApproval, resumeGate } from "./gates";
import { callRequest, checkPermission, grantedTools, grantsByName, toolVerdict } from "./permission-check";
import { policyInputDigest, takeReplayed } from "./replay";
import { actionSchema, type Pending } from "./state";
import { beginTurn, takeFromTurn } from "./turns";
import type { AgentDefinition, Decision, PolicyInput } from "./types";

// One step of the agent loop, taken by the worker that holds the run's lease. A step first settles
// whatever the run was waiting on; otherwise it asks the policy for the next decision and acts on it.

const DEFAULT_MAX_STEPS = 200;

export async function advance(ctx: EngineContext, cursor: RunCursor): Promise<StepOutcome> {
  // A run keeps the agent version it started with (its state names it; an upgrade changes it): new code
  // never takes over a run silently. Several versions may be loaded side by side (agent-registry.ts).
  const agent = ctx.agents.version(cursor.run.agentSlug, cursor.state.agent.version);
  if (!agent) {
    if (!ctx.agents.has(cursor.run.agentSlug))
      return cursor.finish("FAILED", `agent ${cursor.run.agentSlug} is not registered`);
    // Its version is gone: a person upgrades it to the newest or cancels it (agent-version-gone.ts).
    const pending = cursor.state.pending;
    if (pending?.kind === "version") return resumeVersionGone(ctx, cursor, pending);
    return parkVersionGone(ctx, cursor, ctx.agents.get(cursor.run.agentSlug)!);
  }

  const orphaned = await endIfOrphaned(ctx, cursor);
  if (orphaned) return orphaned;

  const pending = cursor.state.pending;
  if (pending) {
    const settled = await settlePending(ctx, cursor, agent, pending);
    if (settled) return settled;
  }
  if (cursor.state.step >= (agent.maxSteps ?? DEFAULT_MAX_STEPS))
    return cursor.finish("FAILED", `step budget of ${agent.maxSteps ?? DEFAULT_MAX_STEPS} exhausted`);
  if (cursor.state.consecutiveErrors >= ctx.maxConsecutiveErrors)
    return cursor.finish("FAILED", `${cursor.state.consecutiveErrors} tool errors in a row`);

  // The rest of a turn of several calls goes first: the policy already chose it (turns.ts).
  const next = takeFromTurn(cursor);
  if (next) return act(ctx, cursor, agent, next);
  // Asking the model again would spend past the run's token or dollar budget: a person decides first.
  const spent = spendBudgetReached(cursor.state);
  if (spent) return parkAtBudget(cursor, ctx, spent, null);

  let decision: Decision;
  try {
    const input = await policyInput(ctx, cursor, agent);
    const inputDigest = policyInputDigest(input);
    // A fork on its source's path takes the source's recorded answer instead of asking again (replay.ts).
    const replayed = takeReplayed(cursor, inputDigest);
    if (replayed) {
      decision = replayed.decision;
      const queued = beginTurn(cursor, decision, replayed.queued ?? []);
      cursor.event("model.replayed", {
        decision,
        inputDigest,
        from: replayed.from,
        ...(queued.length ? { queued } : {}),
      });
    } else {
      const started = performance.now();
      const out = await agent.policy.decide(input);
      const latencyMs = Math.round(performance.now() - started);
      decision = out.decision;
      if (out.usage) cursor.paid = true;
      const usage = cursor.state.usage;
      cursor.state.usage = {
        modelCalls: usage.modelCalls + (out.usage ? 1 : 0),
        inputTokens: usage.inputTokens + (out.usage?.inputTokens ?? 0),
        outputTokens: usage.outputTokens + (out.usage?.outputTokens ?? 0),
        costUsd: usage.costUsd + (out.usage?.costUsd ?? 0),
      };
      const queued = beginTurn(cursor, decision, out.queued ?? []);
      // Recorded with the step's commit (or the intent), so a resumed run never asks again for what it acted on;
      // the rest of a turn is in the state the same commit writes; the digest lets a fork replay it.
      cursor.event("model.decision", {
        decision,
        ...(queued.length ? { queued } : {}),
        usage: out.usage ?? null,
        latencyMs,
        inputDigest,
        ...(out.raw !== undefined ? { raw: out.raw } : {}),
      });
    }
    cursor.state.policyFailures = 0;
  } catch (error) {
    return policyFailed(ctx, cursor, error instanceof Error ? error.message : String(error));
  }
  return act(ctx, cursor, agent, decision);
}

const MAX_POLICY_RETRY_MS = 5 * 60_000;

/**
 * The policy threw (a model provider down past its SDK's own retries): the run is not failed for it. It
 * sleeps and asks again, backing off; after maxPolicyAttempts in a row it waits for a person
 * (NEEDS_ATTENTION; resuming it gives the policy a fresh set of attempts). Nothing was acted on.
 */
function policyFailed(ctx: EngineContext, cursor: RunCursor, message: string): Promise<StepOutcome> {
  const failures = cursor.state.policyFailures + 1;
  cursor.event("policy.error", { error: message, attempt: failures, of: ctx.maxPolicyAttempts });
  if (failures >= ctx.maxPolicyAttempts) {
    cursor.state.policyFailures = 0;
    cursor.observe({
      kind: "policy_error",
      message: `The policy failed ${failures} times in a row (${message}); a person resumes the run when it can decide again.`,
    });
    return cursor.park("NEEDS_ATTENTION");
  }
  cursor.state.policyFailures = failures;
  const retryAt = new Date(
    cursor.now().getTime() + Math.min(ctx.policyRetryBaseMs * 2 ** (failures - 1), MAX_POLICY_RETRY_MS),
  );
  cursor.observe({
    kind: "policy_error",
    message: `The policy failed (${message}); asked again at ${retryAt.toISOString()}.`,
  });
  return cursor.park("SLEEPING", { wakeAt: retryAt });
}

/** Returns an outcome when the pending thing was handled, or null when the policy should decide. */
async function settlePending(
  ctx: EngineContext,
  cursor: RunCursor,
  agent: AgentDefinition,
  pending: Pending,
): Promise<StepOutcome | null> {
  const now = cursor.now();
  switch (pending.kind) {
    case "effect":
      return recoverEffect(ctx, cursor, pending);
    case "gate":
      return resumeGate(ctx, cursor, pending);
    case "version":
      return resumeVersionGone(ctx, cursor, pending); // its version was loaded again meanwhile: the packet still decides
    case "child":
      return resumeChild(ctx, cursor, pending);
    case "budget":
      return resumeBudget(ctx, cursor, pending, (action) => callTool(ctx, cursor, agent, { kind: "call", ...action }));
    case "sleep":
      if (Date.parse(pending.until) > now.getTime())
        return cursor.park("SLEEPING", { wakeAt: new Date(pending.until) });
      cursor.event("timer.fired", { until: pending.until, lateMs: now.getTime() - Date.parse(pending.until) });
      cursor.observe({ kind: "timer", message: `Slept until ${pending.until}` });
      cursor.finishStep();
      return null; // written with the next decision's commit
    case "event": {
      const [signal] = await ctx.store.listSignals(cursor.runId, { type: pending.eventType, unconsumed: true });
      if (signal) {
        cursor.event("signal.consumed", { signalId: signal.id, signalType: signal.type, dedupKey: signal.dedupKey });
        cursor.addFact({
          key: `signal:${signal.type}`,
          value: signal.payload,
          kind: "receipt",
          source: { receiptId: signal.dedupKey },
        });
        cursor.observe({ kind: "signal", message: `Received ${signal.type}`, data: signal.payload });
        cursor.finishStep();
        return cursor.commit({ status: "RUNNING", consumeSignalIds: [signal.id] });
      }
      if (pending.timeoutAt && Date.parse(pending.timeoutAt) <= now.getTime()) {
        cursor.event("signal.timeout", { signalType: pending.eventType, timeoutAt: pending.timeoutAt });
        cursor.observe({ kind: "timeout", message: `No ${pending.eventType} arrived by ${pending.timeoutAt}` });
        cursor.finishStep();
        return null;
      }
      return cursor.park("WAITING_EVENT", {
        waitingFor: pending.eventType,
        wakeAt: pending.timeoutAt ? new Date(pending.timeoutAt) : null,
      });
    }
  }
}

async function policyInput(ctx: EngineContext, cursor: RunCursor, agent: AgentDefinition): Promise<PolicyInput> {
  // Clock readings and random ids are journaled under the step, so replaying the step replays them.
  const counters = { now: 0, id: 0 };
  const recorded = <T>(name: string, make: () => T): T => {
    const key = `${cursor.step}:${name}:${name === "now" ? counters.now++ : counters.id++}`;
    if (!(key in cursor.state.journal)) cursor.state.journal[key] = make();
    return cursor.state.journal[key] as T;
  };
  const granted = await grantedTools(ctx, cursor.run.workspaceId, agent);
  return {
    runId: cursor.run.id,
    state: cursor.state,
    instructions: cursor.state.instructions,
    lastObservation: cursor.state.observations.at(-1),
    // Its own tools, and the registered ones a rule grants it by name (resolved fresh: an admin's edit counts).
    // A granted tool whose grant lacks the capability it needs is not offered (the call would be refused).
    tools: (await Promise.all([...agent.tools, ...granted.keys()].map((name) => findTool(ctx, name)))).flatMap(
      (tool) =>
        tool && (agent.tools.includes(tool.name) || granted.get(tool.name)?.has(tool.capability))
          ? [
              {
                name: tool.name,
                description: tool.description,
                capability: tool.capability,
                semantics: tool.semantics,
                input: tool.input,
              },
            ]
          : [],
    ),
    now: () => new Date(recorded("now", () => ctx.clock.now().toISOString())),
    randomId: () => recorded("id", () => ctx.ids.id("rnd")),
    ...(agent.spawns?.length
      ? {
          children: agent.spawns.flatMap((slug) => {
            const child = ctx.agents.get(slug);
            return child ? [{ slug, description: child.description, input: child.input }] : [];
          }),
        }
      : {}),
  };
}

async function act(
  ctx: EngineContext,
  cursor: RunCursor,
  agent: AgentDefinition,
  decision: Decision,
): Promise<StepOutcome> {
  const now = cursor.now();
  switch (decision.kind) {
    case "complete":
      cursor.state.output = decision.output;
      cursor.event("run.completed", { output: decision.output });
      return cursor.finish("COMPLETED");
    case "fail":
      return cursor.finish("FAILED", decision.reason);
    case "record":
      for (const fact of decision.facts) {
        // Never in the place of a fact a tool, a person or a signal gave (fact-keys.ts).
        const { key, refused } = inferenceKeyFor(cursor.state, fact.key);
        cursor.addFact({ key, value: fact.value, kind: "inference" });
        if (refused) {
          cursor.observe({
            kind: "key_refused",
            message: `The inference recorded as "${refused.requested}" is kept under "${key}": that key holds ${refused.heldBy}, which an inference may not replace`,
            data: { factKey: key, requestedKey: refused.requested },
          });
        }
      }
      if (decision.plan) cursor.state.plan = decision.plan;
      cursor.finishStep();
      return cursor.commit({ status: "RUNNING" });
    case "sleep": {
      const until = new Date(now.getTime() + decision.durationMs);
      cursor.state.pending = { kind: "sleep", until: until.toISOString() };
      cursor.event("timer.set", { until: until.toISOString(), reason: decision.reason ?? null });
      return cursor.park("SLEEPING", { wakeAt: until });
    }
    case "wait_event": {
      const timeoutAt = decision.timeoutMs ? new Date(now.getTime() + decision.timeoutMs) : null;
      cursor.state.pending = {
        kind: "event",
        eventType: decision.eventType,
        timeoutAt: timeoutAt?.toISOString() ?? null,
      };
      cursor.event("signal.waiting", { signalType: decision.eventType, timeoutAt: timeoutAt?.toISOString() ?? null });
      // The store wakes the run at once if a matching signal is already there.
      return cursor.park("WAITING_EVENT", { waitingFor: decision.eventType, wakeAt: timeoutAt });
    }
    case "call":
      return callTool(ctx, cursor, agent, decision);
    case "spawn":
      return spawnChild(ctx, cursor, agent, decision);
  }
}

async function callTool(
  ctx: EngineContext,
  cursor: RunCursor,
  agent: AgentDefinition,
  decision: Extract<Decision, { kind: "call" }>,
): Promise<StepOutcome> {
  const parsedAction = actionSchema.safeParse(decision);
  const tool = await findTool(ctx, decision.tool, cursor.run);
  if (!tool || !parsedAction.success)
    return rejectCall(
      cursor,
      decision.tool,
      tool ? "malformed action" : `unknown tool ${decision.tool}`,
      tool ? "INVALID_ARGS" : "UNKNOWN_TOOL",
    );
  const args = tool.input.safeParse(decision.args);
  if (!args.success)
    return rejectCall(
      cursor,
      tool.name,
      `arguments do not match ${tool.name}'s schema`,
      "INVALID_ARGS",
      fieldErrorsFromIssues(args.error.issues),
    );
  const action = { ...parsedAction.data, args: args.data };

  // Checked now, at the moment of acting; what it allows is written only while the rules still hold (permission-check.ts).
  const verdict = toolVerdict(tool, await checkPermission(ctx, cursor, callRequest(cursor, agent.slug, tool, action)));
  // A tool outside the agent's own list (or its run's) is usable only where a rule grants it to this agent by name.
  const isOwn = agent.tools.includes(tool.name) || runTool(ctx, cursor.run, tool.name) !== undefined;
  if (!isOwn && !(verdict.rule && grantsByName(verdict.rule, agent.slug))) {
    return rejectCall(
      cursor,
      tool.name,
      `${tool.name} is not one of ${agent.slug}'s tools, and no permission grants it to ${agent.slug} by name`,
      "UNKNOWN_TOOL",
    );
  }
  // An auto-approved call says which predicates let it through: an operator sees why no person was asked.
  cursor.event("permission.checked", {
    tool: tool.name,
    capability: tool.capability,
    effect: verdict.effect,
    reason: verdict.reason,
    ruleVersion: verdict.rule?.version ?? null,
    ...(verdict.gateSkippedBy ? { gateSkippedBy: verdict.gateSkippedBy } : {}),
  });
  if (verdict.effect === "deny") {
    cursor.observe({ kind: "denied", tool: tool.name, message: `Permission denied: ${verdict.reason}` });
    cursor.state.consecutiveErrors += 1;
    cursor.finishStep();
    return cursor.commit({ status: "RUNNING" });
  }
  // Past its tool-call budget the call waits for a person (asked before any approval of the call itself).
  const reached = toolCallBudgetReached(cursor.state);
  if (reached) return parkAtBudget(cursor, ctx, reached, action);
  if (verdict.effect === "require_approval") return requestApproval(ctx, cursor, tool, action, verdict);
  if (tool.semantics === "pure-read") return performRead(ctx, cursor, tool, action);
  return startEffect(ctx, cursor, tool, action, null);
}

function rejectCall(
  cursor: RunCursor,
  tool: string,
  why: string,
  code: string,
  fieldErrors?: Record<string, string[]>,
): Promise<StepOutcome> {
  cursor.event("tool.rejected", { tool, code, why, ...(fieldErrors ? { fieldErrors } : {}) });
  cursor.observe({ kind: "tool_error", tool, message: why, data: { code, fieldErrors } });
  cursor.state.consecutiveErrors += 1;
  cursor.finishStep();
  return cursor.commit({ status: "RUNNING" });
}
