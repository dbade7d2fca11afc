import { AppError } from "@/lib/runtime/errors";
import type { RuntimeStore } from "@/lib/runtime/store";
import { isUniqueViolation, json, toSignal } from "./records";
import { appendEvents } from "./trace-events";
import type { Dialect } from "./dialect";
import { notifyInTransaction } from "./wakeups";

// External signals (callbacks) in the store: delivered at most once per (run, dedup key) — a duplicate is
// recorded in the trace, not delivered again — and a run waiting for that signal type is woken.

type SignalStore = Pick<RuntimeStore, "deliverSignal" | "listSignals">;

export function createSignalStore(d: Dialect): SignalStore {
  const { db, wakeups } = d;
  return {
    async deliverSignal({ id, runId, type, dedupKey, payload, now: at }) {
      const duplicateOf = async () => {
        const existing = await db.signal.findUniqueOrThrow({ where: { runId_dedupKey: { runId, dedupKey } } });
        await db.$transaction(async (tx) =>
          appendEvents(
            tx,
            runId,
            [
              {
                type: "signal.duplicate",
                step: -1,
                data: { signalType: type, dedupKey, firstReceivedAt: existing.receivedAt.toISOString() },
              },
            ],
            at,
          ),
        );
        return { signal: toSignal(existing), duplicate: true };
      };
      const run = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
      if (!run)
        throw new AppError("NOT_FOUND", { message: `run ${runId} not found`, userMessage: "That run does not exist." });
      if (await db.signal.findUnique({ where: { runId_dedupKey: { runId, dedupKey } }, select: { id: true } }))
        return duplicateOf();
      let woken = false;
      try {
        const row = await db.$transaction(async (tx) => {
          const created = await tx.signal.create({
            data: { id, runId, type, dedupKey, payload: json(payload), receivedAt: at },
          });
          // Events first: their seq increment locks the run's row, so the wake check below reads the
          // run after any commit in flight (on Postgres a statement sees what committed before it
          // started). A commit that parks the run on this event either is seen here or sees this signal.
          await appendEvents(
            tx,
            runId,
            [{ type: "signal.received", step: -1, data: { signalId: id, signalType: type, dedupKey } }],
            at,
          );
          const { count } = await tx.run.updateMany({
            where: { id: runId, status: "WAITING_EVENT", waitingFor: type },
            data: { wakeAt: at, runnableAt: at },
          });
          woken = count > 0;
          if (woken) await notifyInTransaction(tx, d.name === "postgres", { runId });
          return created;
        });
        if (woken) wakeups.emit({ runId });
        return { signal: toSignal(row), duplicate: false };
      } catch (error) {
        if (isUniqueViolation(error)) return duplicateOf(); // lost a race with the same delivery
        throw error;
      }
    },

    async listSignals(runId, opts = {}) {
      const rows = await db.signal.findMany({
        where: { runId, type: opts.type, ...(opts.unconsumed ? { consumedAt: null } : {}) },
        orderBy: { receivedAt: "asc" },
      });
      return rows.map(toSignal);
    },
  };
}
