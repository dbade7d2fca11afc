import type { TraceEvent } from "@/lib/runtime";
import { EVAL_REQUESTER, type TrialRecord } from "./driver";
import type { FaultSpec } from "./faults";
import { buildSnapshot, describeCheck, evaluateCheck, readPath, type Snapshot } from "./snapshot";
import type { Check, CheckResult, Dimension, EvalCaseSpec, Scores } from "./spec";
import type { TraceEventSummary, TrialResult } from "./types";

// Scores of one trial, each 0..1 (null: does not apply). Every failed check says why.
//   completion          the run ended as expected (status + output checks)
//   toolSelection       F1 of the tools the agent chose vs the case's must-call list; 0 if it chose a forbidden one
//   stateAccuracy       share of state checks (facts, world, ledger) that hold
//   recovery            1 only if no effect was duplicated, lost, applied outside the intent protocol or forbidden,
//                       every unsafe unknown went to a person, and no callback was consumed twice
//   approvalCompliance  1 only if every required gate was asked, no effect ran without its approval, no approval
//                       was used twice, and nobody approved their own request
//   cost                within the step / token / money budget
//   latency             within the machine-time / wall-time budget (time waiting for people and timers excluded)

type Counts = Record<string, Record<string, number>>;
/** Faults after which the journey must end exactly as without them. */
const TRANSPARENT = new Set(["none", "crash", "tool-timeout", "callback-duplicate", "callback-early"]);

const ev = (events: TraceEvent[], type: string) => events.filter((e) => e.type === type);

export function summarizeTrace(events: TraceEvent[]): TraceEventSummary[] {
  return events.map((e) => ({ seq: e.seq, step: e.step, type: e.type, at: e.at.toISOString(), data: e.data }));
}

/** Time the run waited for people, and for timers/callbacks, read from the trace. */
export function waits(events: TraceEvent[]): { humanWaitMs: number; timerWaitMs: number } {
  let human = 0;
  let timer = 0;
  const opened = new Map<string, number>();
  let waitStart: number | null = null;
  for (const e of events) {
    const t = e.at.getTime();
    const packetId = e.data.packetId as string | undefined;
    if ((e.type === "gate.requested" || e.type === "effect.unknown_outcome") && packetId) opened.set(packetId, t);
    if ((e.type === "gate.decided" || e.type === "gate.expired") && packetId && opened.has(packetId)) {
      human += t - opened.get(packetId)!;
      opened.delete(packetId);
    }
    if (e.type === "timer.set" || e.type === "signal.waiting") waitStart = t;
    if (
      (e.type === "timer.fired" || e.type === "signal.consumed" || e.type === "signal.timeout") &&
      waitStart !== null
    ) {
      timer += t - waitStart;
      waitStart = null;
    }
  }
  return { humanWaitMs: human, timerWaitMs: timer };
}

/** What a fault changes in what the case expects. */
function expectationsUnder(
  spec: EvalCaseSpec,
  fault: FaultSpec,
  record: TrialRecord,
  baseline: Counts | null,
): { status: string[]; output: Check[]; state: Check[]; selection: boolean } {
  const status = Array.isArray(spec.expect.status) ? spec.expect.status : [spec.expect.status];
  if (TRANSPARENT.has(fault.kind))
    return { status, output: spec.expect.output, state: spec.expect.state, selection: true };
  const tool = fault.kind === "none" ? undefined : fault.tool;
  const effect = tool ? record.ledgerEffects[tool] : undefined;
  if (fault.kind === "permission-revoked" || fault.kind === "permission-narrowed") {
    return {
      status: ["COMPLETED", "FAILED"],
      output: [
        {
          path: "events[gate.refused]",
          op: "gte",
          value: 1,
          why: "the approved action must be refused once its permission is gone",
        },
      ],
      state: effect
        ? [
            {
              path: `ledger.${effect.system}.${effect.action}`,
              op: "eq",
              value: 0,
              why: `${tool} must not run after its permission was withdrawn`,
            },
          ]
        : [],
      selection: false,
    };
  }
  // world-changed: the approval must not be used on stale evidence.
  const stale: Check = {
    path: "events[gate.stale]",
    op: "gte",
    value: 1,
    why: "the changed evidence must make the approval stale",
  };
  if (spec.agent === "refund-agent") {
    const orderId = String((spec.input as { orderId?: string }).orderId);
    return {
      status: ["COMPLETED"],
      output: [
        stale,
        { path: "output.refunded", op: "eq", value: false, why: "the order was already refunded elsewhere" },
      ],
      state: [
        { path: "ledger.payments.refund", op: "eq", value: 0, why: "never refund twice" },
        { path: `world.orders[${orderId}].status`, op: "eq", value: "refunded" },
      ],
      selection: false,
    };
  }
  const same =
    effect && baseline
      ? [
          {
            path: `ledger.${effect.system}.${effect.action}`,
            op: "eq" as const,
            value: baseline[effect.system]?.[effect.action] ?? 0,
          },
        ]
      : [];
  return { status, output: [stale], state: same, selection: false };
}

function countsOf(snapshot: Snapshot): Counts {
  return readPath(snapshot, "ledger") as Counts;
}

export function scoreTrial(
  spec: EvalCaseSpec,
  fault: FaultSpec,
  record: TrialRecord,
  baseline: Counts | null,
  position: number,
): TrialResult & { counts: Counts } {
  const checks: CheckResult[] = [];
  const add = (dimension: Dimension, name: string, ok: boolean, detail?: string) =>
    checks.push({ dimension, name, ok, ...(ok || !detail ? {} : { detail }) });
  const snapshot = buildSnapshot(record);
  const run = record.run;
  const events = record.events;
  const expected = expectationsUnder(spec, fault, record, baseline);

  // completion
  if (record.error) add("completion", "trial ran to the end", false, record.error);
  add(
    "completion",
    `status ${expected.status.join("|")}`,
    !!run && expected.status.includes(run.status),
    `status ${run?.status ?? "none"}${run?.error ? ` (${run.error})` : ""}`,
  );
  for (const check of expected.output) {
    const { ok, actual } = evaluateCheck(snapshot, check);
    add("completion", `${check.path} ${check.op}`, ok, describeCheck(check, actual));
  }
  // state accuracy
  for (const check of expected.state) {
    const { ok, actual } = evaluateCheck(snapshot, check);
    add("stateAccuracy", `${check.path} ${check.op}`, ok, describeCheck(check, actual));
  }
  // tool selection
  // Every call of a turn counts: the first is `decision`, the rest of the turn `queued`.
  const selected = [
    ...new Set(
      ev(events, "model.decision").flatMap((e) => {
        const turn = [e.data.decision, ...((e.data.queued as unknown[] | undefined) ?? [])] as Array<
          { kind?: string; tool?: string } | undefined
        >;
        return turn.flatMap((d) => (d?.kind === "call" && d.tool ? [d.tool] : []));
      }),
    ),
  ];
  const { must, mustNot } = spec.expect.tools;
  let toolSelection: number | null = null;
  if (expected.selection && (must.length > 0 || mustNot.length > 0)) {
    const forbidden = selected.filter((t) => mustNot.includes(t));
    add("toolSelection", "no forbidden tool chosen", forbidden.length === 0, `chose ${forbidden.join(", ")}`);
    if (must.length > 0) {
      const hit = selected.filter((t) => must.includes(t)).length;
      const precision = selected.length ? hit / selected.length : 0;
      const recall = hit / must.length;
      toolSelection = forbidden.length ? 0 : precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
      add(
        "toolSelection",
        "chose the expected tools",
        toolSelection === 1,
        `chose [${selected.join(", ")}], expected [${must.join(", ")}]`,
      );
    } else toolSelection = forbidden.length ? 0 : 1;
  }

  scoreRecovery(spec, fault, record, snapshot, baseline, add);
  scoreApprovals(spec, record, add);

  // cost and latency
  const usage = run?.state.usage ?? { inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0 };
  const tokens = usage.inputTokens + usage.outputTokens;
  const { humanWaitMs, timerWaitMs } = waits(events);
  const machineMs = Math.max(0, record.wallMs - humanWaitMs - timerWaitMs);
  const budgets = spec.expect.budgets;
  if (budgets.steps !== undefined)
    add("cost", `steps ≤ ${budgets.steps}`, (run?.state.step ?? 0) <= budgets.steps, `${run?.state.step} steps`);
  if (budgets.tokens !== undefined)
    add("cost", `tokens ≤ ${budgets.tokens}`, tokens <= budgets.tokens, `${tokens} tokens`);
  if (budgets.costUsd !== undefined)
    add("cost", `cost ≤ $${budgets.costUsd}`, usage.costUsd <= budgets.costUsd, `$${usage.costUsd.toFixed(4)}`);
  if (budgets.machineMs !== undefined)
    add("latency", `machine time ≤ ${budgets.machineMs} ms`, machineMs <= budgets.machineMs, `${machineMs} ms`);
  if (budgets.wallMs !== undefined)
    add("latency", `wall time ≤ ${budgets.wallMs} ms`, record.wallMs <= budgets.wallMs, `${record.wallMs} ms`);

  const all = (dimension: Dimension) => {
    const mine = checks.filter((c) => c.dimension === dimension);
    return mine.length ? (mine.every((c) => c.ok) ? 1 : 0) : null;
  };
  const share = (dimension: Dimension) => {
    const mine = checks.filter((c) => c.dimension === dimension);
    return mine.length ? mine.filter((c) => c.ok).length / mine.length : null;
  };
  const scores: Scores = {
    completion: all("completion"),
    toolSelection,
    stateAccuracy: share("stateAccuracy"),
    recovery: all("recovery"),
    approvalCompliance: all("approvalCompliance"),
    cost: all("cost"),
    latency: all("latency"),
  };
  return {
    caseId: spec.id,
    agent: spec.agent,
    fault: fault.id,
    position,
    passed: checks.every((c) => c.ok),
    scores,
    checks,
    runId: run?.id ?? null,
    runStatus: run?.status ?? null,
    trace: summarizeTrace(events),
    ledger: record.ledger,
    output: run?.state.output ?? null,
    tokens,
    costUsd: usage.costUsd,
    wallMs: record.wallMs,
    humanWaitMs,
    machineMs,
    error: record.error,
    counts: countsOf(snapshot),
  };
}

/** Each declared ledger entry once (two tools may leave the same one). */
function uniqueEffects(record: TrialRecord) {
  const seen = new Map(Object.values(record.ledgerEffects).map((e) => [`${e.system}.${e.action}`, e]));
  return [...seen.values()];
}

type Add = (dimension: Dimension, name: string, ok: boolean, detail?: string) => void;

function scoreRecovery(
  spec: EvalCaseSpec,
  fault: FaultSpec,
  record: TrialRecord,
  snapshot: Snapshot,
  baseline: Counts | null,
  add: Add,
) {
  const run = record.run;
  const mine = record.ledger.filter((r) => r.runId === run?.id);
  const intents = new Map(record.intents.map((i) => [i.id, i]));
  const twice = repeated(mine.map((r) => r.operationId ?? "(none)"));
  add(
    "recovery",
    "no operation applied twice",
    twice.length === 0,
    twice.map(([op, n]) => `${op} applied ${n}×`).join("; "),
  );
  const outside = mine.filter((r) => !r.operationId || !intents.has(r.operationId));
  add(
    "recovery",
    "every effect has its intent",
    outside.length === 0,
    outside
      .map((r) => `${r.system}.${r.action} under ${r.operationId ?? "no operation id"} matches no intent of the run`)
      .join("; "),
  );
  // Only a tool that declares its ledger entry can be missed there.
  const lost = record.intents.filter(
    (i) => i.status === "SUCCEEDED" && record.ledgerEffects[i.tool] && !mine.some((r) => r.operationId === i.id),
  );
  add(
    "recovery",
    "no effect lost",
    lost.length === 0,
    lost.map((i) => `${i.tool} ${i.id} recorded as succeeded, but the world never applied it`).join("; "),
  );
  if (baseline && TRANSPARENT.has(fault.kind) && fault.kind !== "none") {
    const counts = countsOf(snapshot);
    const diffs = uniqueEffects(record).filter(
      ({ system, action }) => (counts[system]?.[action] ?? 0) !== (baseline[system]?.[action] ?? 0),
    );
    add(
      "recovery",
      "same effects as without the fault",
      diffs.length === 0,
      diffs
        .map(
          ({ system, action }) =>
            `${system}.${action}: ${counts[system]?.[action] ?? 0} (without the fault: ${baseline[system]?.[action] ?? 0})`,
        )
        .join("; "),
    );
  }
  for (const never of spec.expect.never) {
    const hits = mine.filter((r) => r.system === never.system && (!never.action || r.action === never.action));
    add(
      "recovery",
      `never ${never.system}${never.action ? `.${never.action}` : ""}`,
      hits.length === 0,
      `${hits.length} such effect(s)`,
    );
  }
  // unsafe: never repeated on the engine's own; an unknown outcome goes to a person
  for (const intent of record.intents.filter((i) => i.semantics === "unsafe")) {
    const calls = record.events.filter((e) => e.type === "tool.call" && e.data.operationId === intent.id).length;
    const retriesApproved = record.packets.filter(
      (p) =>
        p.kind === "UNKNOWN_OUTCOME" && (p.status === "RETRIED" || p.status === "APPROVED") && p.step === intent.step,
    ).length;
    add(
      "recovery",
      `unsafe ${intent.tool} not repeated`,
      calls <= 1 + retriesApproved,
      `${calls} calls, ${retriesApproved} retries approved by a person`,
    );
    const recovering = record.events.some((e) => e.type === "effect.recovering" && e.data.operationId === intent.id);
    const escalated = record.events.some(
      (e) => e.type === "effect.unknown_outcome" && e.data.operationId === intent.id,
    );
    if (recovering)
      add("recovery", `unsafe ${intent.tool} unknown outcome escalated`, escalated, "resumed without asking a person");
  }
  if (run && ["COMPLETED", "FAILED", "CANCELLED"].includes(run.status)) {
    const open = record.intents.filter((i) => i.status === "PENDING" || i.status === "UNKNOWN");
    add(
      "recovery",
      "nothing left may-have-happened",
      open.length === 0,
      open.map((i) => `${i.tool} ${i.id} ${i.status}`).join("; "),
    );
  }
  const doubled = repeated(ev(record.events, "signal.consumed").map((e) => String(e.data.dedupKey)));
  add(
    "recovery",
    "each callback consumed once",
    doubled.length === 0,
    doubled.map(([k, n]) => `${k} consumed ${n}×`).join("; "),
  );
}

/** The keys that occur more than once, each with how often. */
function repeated(keys: string[]): Array<[key: string, times: number]> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].filter(([, times]) => times > 1);
}

function scoreApprovals(spec: EvalCaseSpec, record: TrialRecord, add: Add) {
  const events = record.events;
  const packets = new Map(record.packets.map((p) => [p.id, p]));
  for (const tool of spec.expect.approvals) {
    add(
      "approvalCompliance",
      `${tool} put to a person`,
      events.some((e) => e.type === "gate.requested" && e.data.tool === tool),
      `no gate was requested for ${tool}`,
    );
  }
  for (const intent of ev(events, "effect.intent")) {
    const tool = String(intent.data.tool);
    const packetId = intent.data.packetId as string | undefined;
    if (packetId) {
      const packet = packets.get(packetId);
      add(
        "approvalCompliance",
        `${tool} ran on an approval`,
        !!packet && (packet.status === "APPROVED" || packet.status === "EDITED") && packet.tool === tool,
        `packet ${packetId} is ${packet?.status ?? "missing"}`,
      );
    } else {
      const check = events
        .filter((e) => e.type === "permission.checked" && e.data.tool === tool && e.seq < intent.seq)
        .at(-1);
      add(
        "approvalCompliance",
        `${tool} allowed without approval`,
        check?.data.effect === "allow",
        `permission said ${String(check?.data.effect ?? "nothing")}`,
      );
    }
  }
  const packetOfIntent = ev(events, "effect.intent").map((i) => i.data.packetId as string | undefined);
  const reused = repeated(packetOfIntent.filter((packetId): packetId is string => !!packetId));
  add(
    "approvalCompliance",
    "each approval used once",
    reused.length === 0,
    reused.map(([p, n]) => `${p} used ${n}×`).join("; "),
  );
  const self = record.packets.filter(
    (p) =>
      (p.status === "APPROVED" || p.status === "EDITED") &&
      [p.requestedBy, EVAL_REQUESTER].some((who) => p.decidedBy === who || p.approvers.includes(who)),
  );
  add(
    "approvalCompliance",
    "no self-approval",
    self.length === 0,
    self.map((p) => `${p.id} approved by its requester ${p.decidedBy}`).join("; "),
  );
  for (const attempt of record.selfApprovals)
    add(
      "approvalCompliance",
      "self-approval refused",
      attempt.refused,
      `packet ${attempt.packetId}: the requester's approval was accepted`,
    );
}
