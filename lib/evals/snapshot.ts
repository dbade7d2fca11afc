import { canonicalJson } from "@/lib/runtime/canonical";
import type { Check } from "./spec";
import type { TrialRecord } from "./driver";

// The final snapshot a case's checks are written against. Paths are dot paths with [brackets] for
// keys that contain dots:  output.refunded · facts.refund.kind · facts[signal:deploy.finished].value.outcome
//   status, error, output, steps       the run
//   facts.<key>.{value,kind}           the newest fact under each key
//   ledger.<system>.<action>           effects THIS run applied (count; 0 for an entry a tool declares)
//   world.ledger.<system>.<action>     every effect in the world (other actors included)
//   world.orders.<id>.{refundedCents,status,amountCents}
//   packets.<STATUS>, packets.total    decision packets of the run by status
//   events.<type>                      trace events of the run by type (count)
//   approvals                          number of approvals recorded in the state

export type Snapshot = Record<string, unknown>;

function countLedger(
  rows: TrialRecord["ledger"],
  declared: TrialRecord["ledgerEffects"],
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const { system, action } of Object.values(declared)) (out[system] ??= {})[action] = 0;
  for (const row of rows) (out[row.system] ??= {})[row.action] = (out[row.system]?.[row.action] ?? 0) + 1;
  return out;
}

export function buildSnapshot(record: TrialRecord): Snapshot {
  const run = record.run;
  const facts: Record<string, { value: unknown; kind: string }> = {};
  for (const fact of run?.state.facts ?? []) facts[fact.key] = { value: fact.value, kind: fact.kind };
  const packets: Record<string, number> = { total: record.packets.length };
  for (const p of record.packets) packets[p.status] = (packets[p.status] ?? 0) + 1;
  const events: Record<string, number> = {};
  for (const e of record.events) events[e.type] = (events[e.type] ?? 0) + 1;
  const runId = run?.id;
  return {
    status: run?.status ?? null,
    error: run?.error ?? record.error,
    output: run?.state.output ?? null,
    steps: run?.state.step ?? 0,
    facts,
    ledger: countLedger(
      record.ledger.filter((r) => r.runId === runId),
      record.ledgerEffects,
    ),
    world: { ledger: countLedger(record.ledger, record.ledgerEffects), orders: record.order },
    packets,
    events,
    approvals: run?.state.approvals.length ?? 0,
  };
}

export function readPath(root: unknown, path: string): unknown {
  const tokens = [...path.matchAll(/\[([^\]]+)\]|[^.[\]]+/g)].map((m) => m[1] ?? m[0]);
  let value: unknown = root;
  for (const token of tokens) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[token];
  }
  return value;
}

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

export function evaluateCheck(snapshot: Snapshot, check: Check): { ok: boolean; actual: unknown } {
  const actual = readPath(snapshot, check.path);
  const expected = check.value;
  const num = (v: unknown) => (typeof v === "number" ? v : v === undefined || v === null ? 0 : Number.NaN);
  switch (check.op) {
    case "eq":
      return { ok: same(actual, expected), actual };
    case "neq":
      return { ok: !same(actual, expected), actual };
    case "gt":
      return { ok: num(actual) > Number(expected), actual };
    case "gte":
      return { ok: num(actual) >= Number(expected), actual };
    case "lt":
      return { ok: num(actual) < Number(expected), actual };
    case "lte":
      return { ok: num(actual) <= Number(expected), actual };
    case "in":
      return { ok: Array.isArray(expected) && expected.some((v) => same(v, actual)), actual };
    case "contains":
      if (typeof actual === "string") return { ok: actual.includes(String(expected)), actual };
      return { ok: Array.isArray(actual) && actual.some((v) => same(v, expected)), actual };
    case "exists":
      return { ok: actual !== undefined && actual !== null, actual };
    case "absent":
      return { ok: actual === undefined || actual === null, actual };
    case "matches":
      return { ok: typeof actual === "string" && new RegExp(String(expected), "i").test(actual), actual };
  }
}

export function describeCheck(check: Check, actual: unknown): string {
  const shown = JSON.stringify(actual);
  return `${check.path} ${check.op}${check.value === undefined ? "" : ` ${JSON.stringify(check.value)}`} — got ${shown === undefined ? "nothing" : shown.length > 160 ? `${shown.slice(0, 157)}…` : shown}${check.why ? ` (${check.why})` : ""}`;
}
