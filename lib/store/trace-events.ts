import type { TraceEventInput } from "@/lib/runtime/types";
import { json, type Tx } from "./records";

/** Append events to a run's trace: reserve seq numbers atomically, then insert them. */
export async function appendEvents(tx: Tx, runId: string, events: TraceEventInput[], now: Date): Promise<number> {
  if (events.length === 0) return -1;
  const { eventSeq } = await tx.run.update({
    where: { id: runId },
    data: { eventSeq: { increment: events.length } },
    select: { eventSeq: true },
  });
  await insertEvents(tx, runId, eventSeq - events.length + 1, events, now);
  return eventSeq;
}

/** Insert events at seq numbers already reserved (a new run's first events, written with the run). */
export async function insertEvents(tx: Tx, runId: string, firstSeq: number, events: TraceEventInput[], now: Date) {
  if (events.length === 0) return;
  await tx.traceEvent.createMany({
    data: events.map((e, i) => ({ runId, seq: firstSeq + i, step: e.step, type: e.type, data: json(e.data), at: now })),
  });
}
