import type { Logger, RuntimeStore, TraceEvent, TraceEventInput } from "@/lib/runtime";
import type { SpanSink } from "./otlp";
import type { Redaction } from "./redact";
import { createSpanFold, type SpanFold } from "./spans";
import { currentTraceContext, parseTraceparent, spanIdOf, traceIdOfRun } from "./trace-context";

// The runtime's store, exporting spans: after each write of trace events commits, the spans those
// events finish are derived from the run's record (spans.ts) and sent. Each span is finished by one
// event, and each event is written once, by one process: so each span is sent once, by the process
// that wrote its last event — a worker for steps and calls, the console for a decision, whichever
// worker took the run over after a crash for the rest. The engine knows nothing of this; the trace
// context of an incoming request is recorded with the run it starts (in run.created), so it holds
// across processes and restarts. Export is after commit and never awaited by the engine: a slow or
// absent collector costs spans, never a step. A process killed between a commit and the export
// loses the spans that commit finished (at most one batch delay's worth).

export type TraceExport = {
  /** Wait until every span of the writes so far is derived and sent. */
  flush(): Promise<void>;
};

type Written =
  { runId: string; from: number; to: number } | { runId: string; count: number; match: (e: TraceEvent) => boolean };

const MAX_FOLDS = 1_000; // runs whose fold is kept between writes (the rest are rebuilt from their events)
const PAGE = 1_000;

export function withTraceExport(
  store: RuntimeStore,
  opts: { sink: SpanSink; redaction?: Redaction; logger?: Logger },
): RuntimeStore & TraceExport {
  const folds = new Map<string, SpanFold>();
  const queues = new Map<string, Promise<void>>();
  const logger = opts.logger;

  async function readEvents(runId: string, afterSeq: number, until: (e: TraceEvent) => boolean): Promise<TraceEvent[]> {
    const events: TraceEvent[] = [];
    for (let after = afterSeq; ;) {
      const page = await store.listEvents(runId, { afterSeq: after, limit: PAGE });
      for (const event of page) {
        events.push(event);
        if (until(event)) return events;
      }
      if (page.length < PAGE) return events;
      after = page[page.length - 1].seq;
    }
  }

  /** The traceparent of a parent run's step span: the parent's trace (its caller's, if it had one), sampled as it was. */
  async function parentStepContext(parentRunId: string, step: number) {
    const [created] = await store.listEvents(parentRunId, { limit: 1 });
    const given = parseTraceparent((created?.data.traceContext as { traceparent?: string } | undefined)?.traceparent);
    const traceId = given?.traceId ?? traceIdOfRun(parentRunId);
    return {
      traceparent: `00-${traceId}-${spanIdOf(parentRunId, `step/${step}`)}-${given && !given.sampled ? "00" : "01"}`,
    };
  }

  async function derive(written: Written) {
    const { runId } = written;
    const fresh = () => createSpanFold(runId, { redaction: opts.redaction });
    let fold = folds.get(runId);
    let events: TraceEvent[];
    let range: { from: number; to: number };
    if ("to" in written) {
      // A fold already past the write (writes of one run can reach here out of order): start again.
      if (!fold || fold.seq >= written.from) fold = fresh();
      events = await readEvents(runId, fold.seq, (e) => e.seq >= written.to);
      range = written;
    } else {
      fold ??= fresh();
      events = await readEvents(runId, fold.seq, written.match);
      let hit = events.find(written.match);
      if (!hit) {
        // Folded past it already: read the run again from its first event.
        fold = fresh();
        events = await readEvents(runId, 0, written.match);
        hit = events.find(written.match);
        if (!hit) return;
      }
      range = { from: hit.seq - written.count + 1, to: hit.seq };
    }
    const finished = fold.apply(events.filter((e) => e.seq <= range.to));
    folds.delete(runId);
    folds.set(runId, fold); // most recent last
    if (folds.size > MAX_FOLDS) folds.delete(folds.keys().next().value!);
    const spans = finished.filter((f) => f.seq >= range.from && f.seq <= range.to).map((f) => f.span);
    if (spans.length > 0) opts.sink.export(spans);
  }

  function wrote(written: Written) {
    const previous = queues.get(written.runId) ?? Promise.resolve();
    const next = previous
      .then(() => derive(written))
      .catch((error: unknown) => logger?.warn("trace export failed", { runId: written.runId, error: String(error) }));
    queues.set(written.runId, next);
    void next.finally(() => {
      if (queues.get(written.runId) === next) queues.delete(written.runId);
    });
  }

  const range = (runId: string, count: number, lastSeq: number) => {
    if (count > 0) wrote({ runId, from: lastSeq - count + 1, to: lastSeq });
  };

  return {
    ...store,

    async createRun(run) {
      if (run.spawnedByRunId && run.spawnedAtStep != null && run.events[0]?.type === "run.created") {
        // A child run joins its parent's trace, under the parent's step that started it.
        const [created, ...rest] = run.events;
        const traceContext = await parentStepContext(run.spawnedByRunId, run.spawnedAtStep);
        return store.createRun({ ...run, events: [{ ...created, data: { ...created.data, traceContext } }, ...rest] });
      }
      const context = currentTraceContext();
      if (!context || run.events[0]?.type !== "run.created") return store.createRun(run);
      const [created, ...rest] = run.events;
      const events: TraceEventInput[] = [{ ...created, data: { ...created.data, traceContext: context } }, ...rest];
      return store.createRun({ ...run, events });
    },

    async commitStep(commit) {
      const result = await store.commitStep(commit);
      range(commit.lease.runId, commit.events.length, result.eventSeq);
      return result;
    },

    async transitionRun(change) {
      const record = await store.transitionRun(change);
      range(change.runId, change.events.length, record.eventSeq);
      return record;
    },

    async decidePacket(decision) {
      const packet = await store.decidePacket(decision);
      const last = decision.events.at(-1);
      if (last) {
        // The store does not say where the events went: they are the run's only ones of this type for this packet and person.
        const match = (e: TraceEvent) =>
          e.type === last.type && e.data.packetId === last.data.packetId && e.data.by === last.data.by;
        wrote({ runId: packet.runId, count: decision.events.length, match });
      }
      return packet;
    },

    async flush() {
      while (queues.size > 0) await Promise.all([...queues.values()]);
      await opts.sink.flush();
    },
  };
}
