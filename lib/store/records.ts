import type { Db } from "@/lib/db";
import { isAppError } from "@/lib/runtime/errors";
import { initialState, loadState } from "@/lib/runtime/state";
import {
  CAPABILITIES,
  type DecisionPacket,
  type EffectIntent,
  type PermissionRule,
  type RunRecord,
  type RunStatus,
  type SignalRecord,
} from "@/lib/runtime/types";
import { joinState, readEntries, type EntryRow } from "./state-entries";

// Rows as Prisma returns them → the engine's records (JSON text parsed, states loaded through their
// schema), and the Prisma error codes the store turns into AppErrors.

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
export type RunRow = Awaited<ReturnType<Db["run"]["findUniqueOrThrow"]>>;
export type PacketRow = Awaited<ReturnType<Db["decisionPacket"]["findUniqueOrThrow"]>> & {
  approvals: Array<{ approver: string }>;
};
type IntentRow = Awaited<ReturnType<Db["effectIntent"]["findUniqueOrThrow"]>>;
export type PermissionRow = Awaited<ReturnType<Db["permission"]["findUniqueOrThrow"]>>;

export const json = (value: unknown) => JSON.stringify(value ?? null);
export const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
/** A list filter's "any of these" (absent: any value). */
export const anyOf = <T>(values: T[] | undefined) => (values ? { in: values } : undefined);

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}
export function isRecordNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2025";
}

export function toListedRunRecord(row: RunRow, entries: EntryRow[]): RunRecord {
  try {
    return toRunRecord(row, entries);
  } catch (error) {
    if (!isAppError(error, "INVALID_STATE")) throw error;
    const state = initialState({
      agent: { slug: row.agentSlug, version: row.agentVersion, instructionsHash: "" },
      instructions: "",
      input: null,
    });
    return { ...toRunRecord({ ...row, state: JSON.stringify(state) }, []), stateError: error.message };
  }
}

/** A run's row and its state's entries (state-entries.ts: 1..row.entrySeq) → the record, its state loaded through its schema. */
export function toRunRecord(row: RunRow, entries: EntryRow[]): RunRecord {
  const { entrySeq: _entrySeq, ...rest } = row;
  const { raw, stored } = joinState(row.state, entries);
  return {
    ...rest,
    status: row.status as RunStatus,
    input: parse(row.input),
    state: loadState(raw),
    storedEntries: stored,
  };
}

/** Many runs' records, with one read of their entries; `toRecord` decides what an unreadable state does. */
export async function toRunRecords(
  db: Pick<Db, "stateEntry">,
  rows: RunRow[],
  toRecord: (row: RunRow, entries: EntryRow[]) => RunRecord = toRunRecord,
): Promise<RunRecord[]> {
  const entries = await readEntries(
    db,
    rows.map((r) => ({ runId: r.id, entrySeq: r.entrySeq })),
  );
  return rows.map((row) => toRecord(row, entries.get(row.id)!));
}

export function toPacket(row: PacketRow): DecisionPacket {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    runId: row.runId,
    step: row.step,
    kind: row.kind as DecisionPacket["kind"],
    tool: row.tool,
    args: parse(row.args),
    digest: row.digest,
    status: row.status as DecisionPacket["status"],
    requestedBy: row.requestedBy,
    content: parse(row.packet) as DecisionPacket["content"],
    queue: row.queue,
    assignee: row.assignee,
    requiredApprovals: row.requiredApprovals,
    approvers: row.approvals.map((a) => a.approver),
    onExpire: row.onExpire,
    expiresAt: row.expiresAt,
    decision: parse(row.decision) as DecisionPacket["decision"],
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    usedAt: row.usedAt,
    version: row.version,
    createdAt: row.createdAt,
  };
}

export function toIntent(row: IntentRow): EffectIntent {
  return {
    id: row.id,
    runId: row.runId,
    step: row.step,
    tool: row.tool,
    args: parse(row.args),
    semantics: row.semantics as EffectIntent["semantics"],
    status: row.status as EffectIntent["status"],
    attempt: row.attempt,
    result: parse(row.result),
    createdAt: row.createdAt,
    completedAt: row.completedAt,
  };
}

export function toPermission(row: PermissionRow): PermissionRule {
  const capabilities = parse(row.capabilities);
  return {
    ...row,
    effect: row.effect as PermissionRule["effect"],
    conditions: parse(row.conditions) as PermissionRule["conditions"],
    // Only the capabilities the engine knows: anything else in the column grants nothing.
    capabilities: CAPABILITIES.filter((c) => Array.isArray(capabilities) && capabilities.includes(c)),
  };
}

export const packetInclude = { approvals: { select: { approver: true }, orderBy: { at: "asc" as const } } };

export function toSignal(row: {
  id: string;
  runId: string;
  type: string;
  dedupKey: string;
  payload: string;
  receivedAt: Date;
  consumedAt: Date | null;
}): SignalRecord {
  return { ...row, payload: parse(row.payload) };
}
