import type { Db } from "@/lib/db";
import { newId } from "./ids";

// The ledger: one row for every effect the world applied — never for an idempotent replay, a decline or
// a rejected request — so a test can count duplicates. It is written in the same transaction as the effect.

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Who asked: the `X-Tether-Run-Id` and `X-Tether-Operation-Id` request headers. */
export type Caller = { runId: string | null; operationId: string | null };

export type LedgerEntry = {
  system: string;
  action: string;
  runId: string | null;
  operationId: string | null;
  at: string;
  data: unknown;
};

export async function recordEffect(
  tx: Tx,
  entry: { system: string; action: string; caller: Caller; data: unknown; at?: Date },
) {
  await tx.sandboxLedgerEntry.create({
    data: {
      id: newId("led"),
      system: entry.system,
      action: entry.action,
      runId: entry.caller.runId,
      operationId: entry.caller.operationId,
      data: JSON.stringify(entry.data),
      at: entry.at ?? new Date(),
    },
  });
}

export type LedgerFilter = { runId?: string; operationId?: string; system?: string };

/** Oldest first. */
export async function findLedgerEntries(db: Db, filter: LedgerFilter = {}): Promise<LedgerEntry[]> {
  const rows = await db.sandboxLedgerEntry.findMany({
    where: { runId: filter.runId, operationId: filter.operationId, system: filter.system },
    orderBy: [{ at: "asc" }, { id: "asc" }],
  });
  return rows.map((row) => ({
    system: row.system,
    action: row.action,
    runId: row.runId,
    operationId: row.operationId,
    at: row.at.toISOString(),
    data: JSON.parse(row.data) as unknown,
  }));
}
