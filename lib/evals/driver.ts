import { createDb, type Db } from "@/lib/db";
import {
  AppError,
  isAppError,
  type DecisionPacket,
  type EffectIntent,
  type RunRecord,
  type TraceEvent,
} from "@/lib/runtime";
import { findLedgerEntries } from "@/lib/sandbox/ledger";
import { putFault } from "@/lib/sandbox/faults";
import { startSandboxServer } from "@/lib/sandbox/http-server";
import type { DeployFinished } from "@/lib/sandbox/callbacks";
import { createEvalEngine, type EvalEngine, type PolicyKind } from "./eval-runtime";
import { worldChangeFor, type FaultSpec } from "./faults";
import type { EvalCaseSpec, ReviewerAnswer } from "./spec";
import type { LedgerEffects } from "./subject";
import type { LedgerRow } from "./types";
import { inProcessWorkers, processWorkers, type CrashWave, type TrialWorkers } from "./workers";
import { applyWorldOp, createTrialDb, setUpWorld } from "./world";
import { decisionInput, nextAnswer, oracleAnswer, replayAnswer } from "./reviewer";

// Drives one trial: a fresh world, the run started, then the loop a real deployment goes through —
// the worker drives the run until it parks; the harness plays the people (the scripted reviewer), the
// deploy system (its callbacks) and the clock (it waits for timers and expiries) — until the run ends
// or waits on something nobody will answer. The fault is injected along the way.

export const EVAL_REQUESTER = "eval-runner@evals.tether";
const MAX_ROUNDS = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type TrialEnv = {
  dir: string;
  template: string;
  policy: PolicyKind;
  breakIdempotency: boolean;
  leaseMs: number;
  trialTimeoutMs: number;
  /** The module of the agents and tools under test (subject.ts); null: the demo agents and built-in tools. */
  subject: string | null;
};

export type TrialRecord = {
  run: RunRecord | null;
  events: TraceEvent[];
  intents: EffectIntent[];
  packets: DecisionPacket[];
  ledger: LedgerRow[];
  /** What the engine's tools declare about the ledger (tool → system · action): how effects are counted. */
  ledgerEffects: LedgerEffects;
  order: Record<string, { amountCents: number; refundedCents: number; status: string }>;
  notes: string[];
  /** Self-approvals the scripted reviewer tried: each must have been refused. */
  selfApprovals: Array<{ packetId: string; refused: boolean }>;
  /** Packets nobody scripted an answer for (left pending). */
  unanswered: string[];
  wallMs: number;
  crash: { at: string; killedPid: number; takeoverPid: number } | null;
  error: string | null;
};

export async function runTrial(
  env: TrialEnv,
  spec: EvalCaseSpec,
  fault: FaultSpec,
  name: string,
  wave?: CrashWave,
): Promise<TrialRecord> {
  // Two databases: the run's (shared with worker processes) and the world's (only this process's
  // sandbox server writes it), so a worker's lease heartbeat never contends with the world's effects.
  const trialDb = createTrialDb(env.template, env.dir, name);
  const worldFile = createTrialDb(env.template, env.dir, `${name}-world`);
  const worldDb: Db = createDb(worldFile.url);
  let engine: EvalEngine | undefined;
  const deliveries: Promise<unknown>[] = [];
  const record: TrialRecord = {
    run: null,
    events: [],
    intents: [],
    packets: [],
    ledger: [],
    ledgerEffects: {},
    order: {},
    notes: [],
    selfApprovals: [],
    unanswered: [],
    wallMs: 0,
    crash: null,
    error: null,
  };
  let workers: TrialWorkers | undefined;
  let world: Awaited<ReturnType<typeof startSandboxServer>> | undefined;
  let started = Date.now();
  const deadline = started + env.trialTimeoutMs;
  let runId: string | null = null;
  try {
    // The engine's onFaultPoint (in this process) serves the out-of-order callback.
    const earlyCallback = fault.kind === "callback-early";
    let completedEarly = false;
    engine = await createEvalEngine({
      dbUrl: trialDb.url,
      sandboxUrl: () => world!.url, // late-bound: the world listens once the engine's database exists
      policy: env.policy,
      subject: env.subject,
      breakIdempotency: env.breakIdempotency,
      onFaultPoint: async (point, info) => {
        if (earlyCallback && !completedEarly && point === "after-call" && info.tool === "deploys.run_migration") {
          completedEarly = true;
          if (spec.world.deploy.outcome !== "never")
            await completeDeploys(world!.url, info.runId, spec.world.deploy.outcome, 2, record.notes);
        }
      },
    });
    const { db, runtime } = engine;
    record.ledgerEffects = engine.ledgerEffects;
    world = await startSandboxServer(worldDb, {
      onDeployFinished: (event: DeployFinished) => {
        if (!event.runId) return;
        const delivery = runtime.deliverSignal(event.runId, {
          type: "deploy.finished",
          dedupKey: event.deployId,
          payload: { deployId: event.deployId, outcome: event.outcome, migration: event.migration },
        });
        deliveries.push(delivery.catch(() => {}));
        return delivery.then(() => {});
      },
    });
    await setUpWorld(worldDb, runtime, spec, engine.subject.agents);
    if (fault.kind === "tool-timeout") {
      const system = engine.ledgerEffects[fault.tool!]?.system;
      if (system)
        await putFault(worldDb, system as Parameters<typeof putFault>[1], { timeoutAfterApply: 1, holdMs: 200 });
    }

    started = Date.now(); // wall time of the journey, not of building its world
    const { run } = await runtime.startRun({ agent: spec.agent, input: spec.input, startedBy: EVAL_REQUESTER });
    runId = run.id;
    if (fault.kind === "crash" && !wave) throw new Error("a crash trial needs a crash wave");
    workers =
      fault.kind === "crash"
        ? await processWorkers({
            db,
            wave: wave!,
            trial: name,
            dbUrl: trialDb.url,
            sandboxUrl: world.url,
            policy: env.policy,
            subject: env.subject,
            breakIdempotency: env.breakIdempotency,
            fault,
            leaseMs: env.leaseMs,
            deadline,
          })
        : inProcessWorkers(engine);

    const answers = [...spec.reviewer];
    // A fault can make the agent ask again (stale evidence): the same people give the same answers.
    const given: ReviewerAnswer[] = [];
    const replays = new Map<string, ReviewerAnswer[]>();
    let waitedOnce = false;
    let faultApplied = false;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (Date.now() > deadline) throw new Error(`trial took longer than ${env.trialTimeoutMs} ms`);
      await workers.settle(runId);
      const current = await runtime.getRun(runId);
      if (["COMPLETED", "FAILED", "CANCELLED"].includes(current.status)) break;

      if (current.status === "WAITING_APPROVAL" || current.status === "NEEDS_ATTENTION") {
        const [packet] = await runtime.store.findPackets({ runId, status: ["PENDING"] });
        if (!packet) {
          if (current.wakeAt) {
            await sleepUntil(current.wakeAt);
            continue;
          }
          record.notes.push(`run ${current.status} without a pending packet`);
          break;
        }
        if (!waitedOnce) {
          waitedOnce = true;
          for (const op of spec.world.whileWaiting) await applyWorldOp(world.url, worldDb, op);
        }
        const answer =
          packet.kind === "UNKNOWN_OUTCOME" && !answers.some((a) => a.kind === "UNKNOWN_OUTCOME")
            ? await oracleAnswer(engine, worldDb, packet, record.notes)
            : (nextAnswer(answers, packet) ?? replayAnswer(given, replays, packet, fault));
        if (!answer || answer.decision === "none") {
          if (packet.expiresAt) {
            await sleepUntil(packet.expiresAt);
            continue;
          }
          record.unanswered.push(packet.id);
          break;
        }
        if (
          !faultApplied &&
          packet.kind === "APPROVAL" &&
          (answer.decision === "approve" || answer.decision === "edit")
        ) {
          // While the approval is being given: the permission or the world changes under the waiting run.
          faultApplied = true;
          await changeWhileWaiting(engine, worldDb, world.url, spec, fault, packet, record.notes);
        }
        if (answer.delayMs > 0) await sleep(answer.delayMs);
        const reviewer = answer.by === "$requester" ? EVAL_REQUESTER : answer.by;
        const input = decisionInput(answer);
        try {
          await runtime.decidePacket({ packetId: packet.id, reviewer, input });
          if (answer.by === "$requester") record.selfApprovals.push({ packetId: packet.id, refused: false });
          if (answer.by !== "$requester") given.push(answer);
        } catch (error) {
          if (answer.by === "$requester" && isAppError(error, "FORBIDDEN")) {
            record.selfApprovals.push({ packetId: packet.id, refused: true });
            continue;
          }
          throw error;
        }
        continue;
      }
      if (current.status === "WAITING_EVENT") {
        const outcome = spec.world.deploy.outcome;
        const completed =
          outcome === "never"
            ? 0
            : await completeDeploys(
                world.url,
                runId,
                outcome,
                fault.kind === "callback-duplicate" ? 3 : spec.world.deploy.deliveries,
                record.notes,
              );
        await Promise.all(deliveries);
        if (completed > 0) continue;
        if (current.wakeAt) {
          await sleepUntil(current.wakeAt);
          continue;
        }
        record.notes.push("run waits for an event nobody will send");
        break;
      }
      if (current.status === "SLEEPING" && current.wakeAt) {
        await sleepUntil(current.wakeAt);
        continue;
      }
      if (current.status === "QUEUED" || current.status === "RUNNING") continue;
      break;
    }
    await Promise.all(deliveries);
    if (fault.kind === "callback-duplicate" || fault.kind === "callback-early") {
      // A late duplicate, after the run moved on: it must change nothing.
      for (const deploy of await worldDb.sandboxDeploy.findMany({ where: { runId, status: { not: "running" } } })) {
        await runtime.deliverSignal(runId, {
          type: "deploy.finished",
          dedupKey: deploy.id,
          payload: { deployId: deploy.id, outcome: deploy.status, migration: deploy.migration },
        });
        record.notes.push(`late duplicate callback for ${deploy.id}`);
      }
      await workers.settle(runId);
    }
  } catch (error) {
    record.error =
      error instanceof AppError
        ? `${error.code}: ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error);
  } finally {
    // Waiting for worker processes to load is the harness's time, not the run's.
    record.wallMs = Date.now() - started - (workers?.overheadMs() ?? 0);
    wave?.arrive(name);
    record.crash = workers?.crashed() ?? null;
    await workers?.close().catch(() => {});
    if (engine && runId)
      await collect(engine, worldDb, runId, spec, record).catch((error) => {
        record.error ??= `collecting the trial failed: ${String(error)}`;
      });
    await world?.close().catch(() => {});
    await engine?.close().catch(() => {});
    await worldDb.$disconnect().catch(() => {});
    trialDb.remove();
    worldFile.remove();
  }
  return record;
}

async function sleepUntil(at: Date) {
  const ms = at.getTime() - Date.now() + 30;
  if (ms > 0) await sleep(ms);
}

/** The deploy system finishes every running migration of the run; its callback is delivered `deliveries` times at once. */
async function completeDeploys(
  sandboxUrl: string,
  runId: string,
  outcome: "succeeded" | "failed",
  deliveries: number,
  notes: string[],
): Promise<number> {
  const res = await fetchRetrying(`${sandboxUrl}/ledger?runId=${encodeURIComponent(runId)}&system=deploys`);
  const { entries } = (await res.json()) as { entries: Array<{ data: { deployId: string } }> };
  let completed = 0;
  for (const entry of entries) {
    const done = await fetchRetrying(`${sandboxUrl}/deploys/${entry.data.deployId}/complete`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ outcome, deliveries }),
    });
    if (done.ok) {
      completed++;
      notes.push(`deploy ${entry.data.deployId} ${outcome}, callback ×${deliveries}`);
    }
  }
  return completed;
}

/** The harness's own calls to the world (set-up and control routes) retry a dropped connection. */
async function fetchRetrying(url: string, init?: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (error) {
      if (attempt >= 3)
        throw new Error(`${init?.method ?? "GET"} ${url}: ${error instanceof Error ? error.message : String(error)}`);
      await sleep(100 * attempt);
    }
  }
}

/** permission-* and world-changed faults: applied just before the first approval is given. */
async function changeWhileWaiting(
  engine: EvalEngine,
  worldDb: Db,
  sandboxUrl: string,
  spec: EvalCaseSpec,
  fault: FaultSpec,
  packet: DecisionPacket,
  notes: string[],
) {
  if (fault.kind === "permission-revoked" || fault.kind === "permission-narrowed") {
    const rules = await engine.runtime.permissions.list(spec.agent);
    const rule = rules.find((r) => r.tool === packet.tool && r.agent === spec.agent);
    const base = { agent: spec.agent, tool: packet.tool, conditions: [], queue: rule?.queue ?? "default" };
    if (rule) await engine.runtime.permissions.remove(rule.id, "admin@evals.tether");
    if (fault.kind === "permission-revoked")
      await engine.runtime.permissions.put({ ...base, effect: "deny" }, { by: "admin@evals.tether" });
    else
      await engine.runtime.permissions.put(
        { ...base, step: "eval-other-step", effect: "require_approval" },
        { by: "admin@evals.tether" },
      );
    notes.push(`${fault.kind}: ${packet.tool} while packet ${packet.id} waited`);
  }
  if (fault.kind === "world-changed") {
    for (const op of await worldChangeFor(spec, sandboxUrl)) await applyWorldOp(sandboxUrl, worldDb, op);
    notes.push(`world changed while packet ${packet.id} waited`);
  }
}

async function collect(engine: EvalEngine, worldDb: Db, runId: string, spec: EvalCaseSpec, record: TrialRecord) {
  const { runtime } = engine;
  record.run = await runtime.getRun(runId);
  record.events = await runtime.store.listEvents(runId, { limit: 10_000 });
  record.intents = await runtime.store.listIntents(runId);
  record.packets = await runtime.store.findPackets({ runId });
  record.ledger = await findLedgerEntries(worldDb);
  const input = (spec.input ?? {}) as { orderId?: string };
  const ids = [
    ...new Set([input.orderId, ...spec.world.orders.map((o) => o.id)].filter((x): x is string => Boolean(x))),
  ];
  for (const row of await worldDb.sandboxOrder.findMany({ where: { id: { in: ids } } })) {
    record.order[row.id] = { amountCents: row.amountCents, refundedCents: row.refundedCents, status: row.status };
  }
}
