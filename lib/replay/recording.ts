import type { DecisionPacket, RunRecord, RunStatus, RuntimeStore, SignalRecord, TraceEvent } from "@/lib/runtime";

// A recorded run: everything a replay answers from (its trace, its packets, its signals), read once from a
// store. The store is the deployment's own database, or a scratch one a backup file was imported into.

export type Recording = {
  run: RunRecord;
  events: TraceEvent[];
  packets: DecisionPacket[];
  signals: SignalRecord[];
};

const PAGE = 1000;

export async function readRecording(store: RuntimeStore, runId: string): Promise<Recording | null> {
  const run = await store.getRun(runId);
  if (!run) return null;
  const events = await listAllEvents(store, runId);
  const [packets, signals] = await Promise.all([store.findPackets({ runId }), store.listSignals(runId)]);
  return { run, events, packets: [...packets].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()), signals };
}

export async function listAllEvents(store: RuntimeStore, runId: string): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  for (let afterSeq = 0; ;) {
    const page = await store.listEvents(runId, { afterSeq, limit: PAGE });
    events.push(...page);
    if (page.length < PAGE) return events;
    afterSeq = page.at(-1)!.seq;
  }
}

export type RunSelection = {
  agentSlug: string;
  runIds?: string[];
  since?: Date;
  limit?: number;
  /** Only runs pinned to this version of the agent. */
  version?: string;
  /** Only runs in these statuses (the console replays runs that ended by what they did). */
  statuses?: RunStatus[];
};

/** The runs to replay: the named ones, or the agent's runs created since a time (newest first), at most `limit`. */
export async function selectRuns(store: RuntimeStore, selection: RunSelection): Promise<string[]> {
  const limit = selection.limit ?? 100;
  if (selection.runIds?.length) return selection.runIds.slice(0, limit);
  const ids: string[] = [];
  for (let cursor: string | undefined; ids.length < limit;) {
    const page = await store.findRuns({
      agentSlug: selection.agentSlug,
      agentVersion: selection.version,
      status: selection.statuses,
      limit: Math.min(200, limit),
      cursor,
    });
    for (const run of page) {
      if (selection.since && run.createdAt < selection.since) continue;
      ids.push(run.id);
      if (ids.length >= limit) break;
    }
    if (page.length < Math.min(200, limit)) break;
    cursor = page.at(-1)!.id;
  }
  return ids;
}

/** Whether a model made the recorded decisions (a model's decision carries its usage or raw answer; a scripted one neither). */
export function decidedByModel(recording: Recording): boolean {
  return recording.events.some(
    (e) => e.type === "model.decision" && (e.data.usage != null || e.data.raw !== undefined),
  );
}
