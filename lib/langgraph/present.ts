import type { DecisionPacket, RunRecord } from "@/lib/runtime/types";
import { humanInterruptOf } from "./human-interrupt";
import { threadStatusOf, type ThreadStatus } from "./thread-status";

// Tether's run and packets in the LangGraph Agent Protocol's shapes (@langchain/langgraph-sdk's Thread,
// ThreadState, Interrupt, Run). A thread's id is the run's id, its graph_id the agent's slug; its
// interrupts are the run's pending approval packets, each keyed by the packet's id (which is also the
// interrupt's id, for a resume keyed by interrupt id).

/** A thread as read: the run, its pending approval packets (oldest first) and each packet tool's editable fields. */
export type ThreadView = {
  run: RunRecord;
  pending: DecisionPacket[];
  editableFields: Map<string, readonly string[] | undefined>;
};

export const statusOfThread = (view: Pick<ThreadView, "run" | "pending">): ThreadStatus =>
  threadStatusOf(view.run.status, view.pending.length > 0);

/** The thread's values: what the run was asked, where it is and what it produced (the state's facts stay in Tether). */
export function threadValues(run: RunRecord) {
  return {
    run_id: run.id,
    agent: run.agentSlug,
    agent_version: run.agentVersion,
    status: run.status,
    input: run.input,
    step: run.state.step,
    plan: run.state.plan,
    output: run.state.output ?? null,
    error: run.error,
  };
}

export function presentInterrupt(view: ThreadView, packet: DecisionPacket) {
  return {
    id: packet.id,
    value: humanInterruptOf(packet, { editableFields: view.editableFields.get(packet.tool) }),
    when: "during",
    resumable: true,
    ns: [`${packet.tool}:${packet.id}`],
  };
}

const metadataOf = (run: RunRecord) => ({
  graph_id: run.agentSlug,
  assistant_id: run.agentSlug,
  agent_version: run.agentVersion,
  run_status: run.status,
  started_by: run.startedBy,
});

export function presentThread(view: ThreadView) {
  const { run } = view;
  const status = statusOfThread(view);
  return {
    thread_id: run.id,
    created_at: run.createdAt.toISOString(),
    updated_at: run.updatedAt.toISOString(),
    state_updated_at: run.updatedAt.toISOString(),
    metadata: metadataOf(run),
    status,
    values: threadValues(run),
    interrupts: Object.fromEntries(view.pending.map((packet) => [packet.id, [presentInterrupt(view, packet)]])),
    config: { configurable: { thread_id: run.id } },
    error: status === "error" ? (run.error ?? `The run is ${run.status.toLowerCase().replace("_", " ")}.`) : null,
  };
}

const checkpointOf = (run: RunRecord) => ({
  thread_id: run.id,
  checkpoint_ns: "",
  checkpoint_id: String(run.stateSeq),
  checkpoint_map: null,
});

export function presentThreadState(view: ThreadView) {
  const { run } = view;
  const status = statusOfThread(view);
  const interrupts = view.pending.map((packet) => presentInterrupt(view, packet));
  return {
    values: threadValues(run),
    // What runs next: the tools waiting for a person; the agent's next step while it is busy; nothing once it ended.
    next:
      status === "interrupted" ? view.pending.map((packet) => packet.tool) : status === "busy" ? [run.agentSlug] : [],
    checkpoint: checkpointOf(run),
    metadata: { ...metadataOf(run), step: run.state.step, source: "loop" },
    created_at: run.updatedAt.toISOString(),
    parent_checkpoint: null,
    tasks: view.pending.map((packet, i) => ({
      id: packet.id,
      name: packet.tool,
      error: null,
      interrupts: [interrupts[i]],
      checkpoint: null,
      state: null,
    })),
    interrupts,
  };
}

/** The protocol's Run for a resume: its id is the first packet it decided (Tether has no run per resume). */
export function presentResumeRun(run: RunRecord, decided: DecisionPacket[]) {
  const now = new Date().toISOString();
  return {
    run_id: decided[0]?.id ?? run.id,
    thread_id: run.id,
    assistant_id: run.agentSlug,
    created_at: now,
    updated_at: now,
    status: "pending" as const,
    metadata: {
      decided: decided.map((packet) => ({ packet_id: packet.id, status: packet.status, decided_by: packet.decidedBy })),
    },
    multitask_strategy: null,
  };
}

/** runs/wait's answer: the values, with the protocol's `__interrupt__` (waiting for a person) or `__error__` (the run failed). */
export function presentWaitResult(view: ThreadView) {
  const status = statusOfThread(view);
  const values: Record<string, unknown> = threadValues(view.run);
  if (status === "interrupted") values.__interrupt__ = view.pending.map((packet) => presentInterrupt(view, packet));
  if (status === "error")
    values.__error__ = {
      error: view.run.status,
      message: view.run.error ?? `The run is ${view.run.status.toLowerCase().replace("_", " ")}.`,
    };
  return values;
}
