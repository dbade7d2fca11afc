import {
  sha256,
  TERMINAL_STATUSES,
  type AgentDefinition,
  type DecisionPacket,
  type Runtime,
  type RuntimeStore,
} from "@/lib/runtime";
import { budgetFor } from "@/lib/runtime/budget";
import { recordedDecisions } from "@/lib/runtime/replay";
import { budgetLimitsSchema, initialState } from "@/lib/runtime/state";
import { actionsOf, firstDifference, type FirstDifference, type ReplayAction } from "./actions";
import { decidedByModel, listAllEvents, type Recording } from "./recording";
import type { RecordedWorld } from "./recorded-world";

// One recorded run, driven again through the current code in a scratch engine (replay-engine.ts): the
// worker takes its steps; where the run waits, the driver answers as the recording did — a person's
// recorded decision on the gate, the recorded signal, the timer's time — and stops where the recording
// has no answer. Then both traces are read as actions and compared.

export type ReplayVerdict = "same" | "differs" | "needs_model";

export type RunReplay = {
  runId: string;
  verdict: ReplayVerdict;
  recordedStatus: string;
  replayedStatus: string;
  /** The first action taken differently (verdict "differs"). */
  difference: FirstDifference | null;
  /** Why the replay stopped before the run ended, if it did (no recorded answer to a gate, a signal…). */
  stopped: string | null;
  /** How many actions the recorded run took. */
  actions: number;
  /** What the replay did, action by action. */
  replayed: ReplayAction[];
};

export type ScratchEngine = {
  runtime: Runtime;
  clock: { set: (d: Date) => void };
  /** The packet ids the next gates get (the recording's, in order). */
  packetIds: { set: (ids: string[]) => void };
  world: RecordedWorld;
  /** The recorded run's children's outcomes, in order: what its spawns are answered with. */
  childOutcomes: { set: (outcomes: Array<{ status: string; output?: unknown; error?: string | null }>) => void };
  /** Set by the replay agent's policy when a model decision had to be made without a model. */
  needsModel: { value: boolean; modelDecided: boolean };
  agent: AgentDefinition;
};

const MAX_ROUNDS = 500;

export async function replayRun(engine: ScratchEngine, source: RuntimeStore, recording: Recording): Promise<RunReplay> {
  const { runtime } = engine;
  const store = runtime.store;
  engine.world.use(recording);
  engine.needsModel.value = false;
  engine.needsModel.modelDecided = decidedByModel(recording);
  engine.clock.set(recording.run.createdAt);
  engine.packetIds.set(recording.packets.map((p) => p.id));
  engine.childOutcomes.set(
    recording.run.state.facts
      .filter((f) => f.kind === "receipt" && f.key.startsWith("child:"))
      .map((f) => f.value as { status: string }),
  );

  const runId = await createReplayRun(engine, source, recording);
  const usedPackets = new Set<string>();
  const usedSignals = new Set<string>();
  let stopped: string | null = null;
  const worker = runtime.createWorker({ owner: "replay", concurrency: 1 });

  for (let round = 0; round < MAX_ROUNDS; round++) {
    await worker.drain();
    const run = (await store.getRun(runId))!;
    if (TERMINAL_STATUSES.includes(run.status)) break;
    if (engine.needsModel.value) {
      stopped = "needs a model";
      break;
    }
    if (run.status === "WAITING_APPROVAL") {
      const [open] = await store.findPackets({ runId, status: ["PENDING"] });
      const recorded = open && nextRecordedDecision(recording.packets, open, usedPackets);
      if (!recorded) {
        stopped = `the recording has no decision for the gate on ${open?.tool ?? "?"} at step ${open?.step ?? "?"}`;
        break;
      }
      usedPackets.add(recorded.id);
      for (const reviewer of reviewersOf(recorded)) {
        const now = await store.getPacket(open.id, open.workspaceId);
        if (now?.status !== "PENDING") break;
        await runtime.decidePacket({
          packetId: open.id,
          reviewer,
          input: { ...recorded.decision },
          via: "replay",
          workspaceId: open.workspaceId,
        });
      }
      continue;
    }
    if (run.status === "WAITING_EVENT") {
      const signal = recording.signals.find((s) => s.type === run.waitingFor && !usedSignals.has(s.id));
      if (signal) {
        usedSignals.add(signal.id);
        await runtime.deliverSignal(runId, { type: signal.type, dedupKey: signal.dedupKey, payload: signal.payload });
        continue;
      }
      if (run.wakeAt) {
        engine.clock.set(run.wakeAt);
        continue;
      } // the recorded run's wait timed out
      stopped = `the recording has no ${run.waitingFor} signal`;
      break;
    }
    if (run.status === "SLEEPING" && run.wakeAt) {
      engine.clock.set(run.wakeAt);
      continue;
    }
    stopped = `the replay stopped ${run.status}${run.error ? `: ${run.error}` : ""}`;
    break;
  }

  const replayed = (await store.getRun(runId))!;
  const replayedActions = actionsOf(await listAllEvents(store, runId));
  const recordedActions = actionsOf(recording.events);
  const verdict = compare(
    recordedActions,
    replayedActions,
    recording.run.status,
    replayed.status,
    engine.needsModel.value,
  );
  return {
    runId: recording.run.id,
    ...verdict,
    recordedStatus: recording.run.status,
    replayedStatus: replayed.status,
    stopped: verdict.verdict === "same" ? null : stopped,
    actions: recordedActions.length,
    replayed: replayedActions,
  };
}

function compare(
  recorded: ReplayAction[],
  replayed: ReplayAction[],
  recordedStatus: string,
  replayedStatus: string,
  needsModel: boolean,
): Pick<RunReplay, "verdict" | "difference"> {
  const difference = firstDifference(recorded, replayed);
  if (needsModel) return { verdict: "needs_model", difference };
  if (difference) return { verdict: "differs", difference };
  if (recordedStatus !== replayedStatus) {
    // Alike action by action, yet ended elsewhere (a step budget, a tool-error streak): the last action is where.
    const last = recorded.length - 1;
    return {
      verdict: "differs",
      difference: {
        index: last,
        step: recorded[last]?.step ?? 0,
        fields: ["outcome"],
        recorded: recorded[last] ?? null,
        replayed: replayed[last] ?? null,
        argsDiff: [],
      },
    };
  }
  return { verdict: "same", difference: null };
}

/**
 * The replayed run: the recorded input, the current agent. A run a model decided carries the model's
 * recorded decisions (as a fork does) and the recorded agent identity in its state, so the policy input's
 * digest — which covers it — matches the recording's wherever what the model was shown is the same.
 */
async function createReplayRun(engine: ScratchEngine, source: RuntimeStore, recording: Recording): Promise<string> {
  const { agent, runtime } = engine;
  const created = recording.events.find((e) => e.type === "run.created");
  const override = budgetLimitsSchema.safeParse(created?.data.budget);
  const state = initialState({
    agent: engine.needsModel.modelDecided
      ? recording.run.state.agent
      : { slug: agent.slug, version: agent.version, instructionsHash: sha256(agent.instructions) },
    instructions: agent.instructions,
    input: recording.run.input,
    plan: agent.plan,
    budget: budgetFor(agent.budget, override.success ? override.data : undefined),
  });
  // Clock readings and random ids the policy took are answered as they were (the journal is keyed by step).
  state.journal = { ...recording.run.state.journal };
  if (engine.needsModel.modelDecided) {
    const decisions = await recordedDecisions(source, recording.run.id, 0);
    state.replay = decisions.length > 0 ? { from: recording.run.id, decisions } : null;
  }
  const id = runtime.context.ids.id("run");
  await runtime.store.createRun({
    id,
    agentSlug: agent.slug,
    agentVersion: agent.version,
    input: recording.run.input,
    state,
    idempotencyKey: null,
    startedBy: recording.run.startedBy,
    parentRunId: null,
    workspaceId: recording.run.workspaceId,
    events: [
      {
        type: "run.created",
        step: 0,
        data: { agent: agent.slug, version: agent.version, input: recording.run.input, replayOf: recording.run.id },
      },
    ],
  });
  return id;
}

/** The recorded packet that answers this one: the first not yet used, of the same tool and kind, decided. */
function nextRecordedDecision(
  packets: DecisionPacket[],
  open: DecisionPacket,
  used: Set<string>,
): DecisionPacket | undefined {
  return packets.find(
    (p) =>
      !used.has(p.id) && p.tool === open.tool && p.kind === open.kind && p.decision !== null && p.status !== "STALE",
  );
}

function reviewersOf(packet: DecisionPacket): string[] {
  const people = packet.approvers.length > 0 ? packet.approvers : [];
  return people.length > 0 ? people : [packet.decidedBy ?? "replay"];
}
