import { FAULT_POINTS, type FaultPoint } from "@/lib/runtime";
import { SANDBOX_SYSTEMS } from "@/lib/sandbox/faults";
import type { EvalCaseSpec, WorldOp } from "./spec";
import type { LedgerEffects } from "./subject";
import type { TraceEventSummary } from "./types";

// Fault schedules (docs/evals.md). A trial is one case under one fault; `--faults all` runs every case
// without faults first, then under every fault that applies to the journey it took:
//   crash:<point>:<tool>   a worker PROCESS is killed (SIGKILL) at that fault point of the engine around
//                          the tool's first call; a fresh worker process takes the run over after the lease
//   callback-duplicate     the deploy.finished callback is delivered 3 times at once, and again after the run ended
//   callback-early         out of order: the callback arrives right after the call, before the run recorded
//                          the result or began to wait — and once more after the run ended
//   permission-revoked     while the run waits for approval, the tool's permission becomes deny
//   permission-narrowed    while the run waits for approval, the grant is narrowed to another plan step
//   world-changed          while the run waits for approval, the world changes (the order is refunded
//                          elsewhere; the doc the agent cites changes; a runbook appears)
//   tool-timeout           the first effect's system applies it, then the response is lost (timeout); for
//                          tools whose declared ledger system is one of the sandbox world's (it has the knob)

export const FAULT_KINDS = [
  "crash",
  "callback-duplicate",
  "callback-early",
  "permission-revoked",
  "permission-narrowed",
  "world-changed",
  "tool-timeout",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type FaultSpec =
  | { id: "none"; kind: "none" }
  | { id: string; kind: "crash"; point: FaultPoint; tool: string }
  | { id: string; kind: Exclude<FaultKind, "crash">; tool?: string };

export const NO_FAULT: FaultSpec = { id: "none", kind: "none" };

/** Agents whose "world changed while it waited" story worldChangeFor knows (the demo agents). */
const WORLD_CHANGE_AGENTS = new Set(["refund-agent", "outreach-agent", "deploy-agent"]);

/** Parse --faults: "none", "all", or a comma-separated list of kinds. */
export function parseFaultSelection(text: string): { baseline: true; kinds: FaultKind[] } {
  const value = text.trim();
  if (value === "" || value === "none") return { baseline: true, kinds: [] };
  if (value === "all") return { baseline: true, kinds: [...FAULT_KINDS] };
  const kinds = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = kinds.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new Error(`unknown fault kind(s): ${unknown.join(", ")} (known: none, all, ${FAULT_KINDS.join(", ")})`);
  return { baseline: true, kinds: kinds as FaultKind[] };
}

/** The faults that apply to a case, read from the journey its baseline trial took and what its tools declare. */
export function faultsFor(
  spec: EvalCaseSpec,
  baseline: TraceEventSummary[],
  kinds: FaultKind[],
  effects: LedgerEffects,
): FaultSpec[] {
  const skip = new Set(spec.skipFaults);
  const wanted = kinds.filter((k) => !skip.has(k));
  const effectTools = [...new Set(baseline.filter((e) => e.type === "effect.intent").map((e) => String(e.data.tool)))];
  const approved = baseline
    .filter((e) => e.type === "gate.decided" && (e.data.decision === "approve" || e.data.decision === "edit"))
    .map((e) => String(e.data.tool));
  const waitsForCallback = baseline.some((e) => e.type === "signal.waiting" && e.data.signalType === "deploy.finished");
  const faults: FaultSpec[] = [];
  for (const kind of wanted) {
    if (kind === "crash") {
      for (const tool of effectTools)
        for (const point of FAULT_POINTS) faults.push({ id: `crash:${point}:${tool}`, kind, point, tool });
    } else if (kind === "callback-duplicate" || kind === "callback-early") {
      if (waitsForCallback && spec.world.deploy.outcome !== "never")
        faults.push({ id: kind, kind, tool: "deploys.run_migration" });
    } else if (kind === "permission-revoked" || kind === "permission-narrowed") {
      if (approved.length > 0) faults.push({ id: kind, kind, tool: approved[0] });
    } else if (kind === "world-changed") {
      if (approved.length > 0 && WORLD_CHANGE_AGENTS.has(spec.agent))
        faults.push({ id: kind, kind, tool: approved[0] });
    } else if (kind === "tool-timeout") {
      const tool = effectTools.find((t) => (SANDBOX_SYSTEMS as readonly string[]).includes(effects[t]?.system ?? ""));
      if (tool) faults.push({ id: kind, kind, tool });
    }
  }
  return faults;
}

/** What "the world changed while the run waited" means for each agent. */
export async function worldChangeFor(spec: EvalCaseSpec, sandboxUrl: string): Promise<WorldOp[]> {
  const input = (spec.input ?? {}) as Record<string, unknown>;
  if (spec.agent === "refund-agent") return [{ op: "refund-elsewhere", orderId: String(input.orderId) }];
  if (spec.agent === "outreach-agent") {
    const query = String(input.query ?? "");
    const res = await fetch(`${sandboxUrl}/docs?query=${encodeURIComponent(query)}`);
    const { docs } = (await res.json()) as { docs: Array<{ id: string; title: string; body: string }> };
    const doc = docs[0];
    return doc
      ? [{ op: "put-doc", id: doc.id, body: `${doc.body} Update: this changed while the email waited for approval.` }]
      : [
          {
            op: "put-doc",
            id: "doc_eval_new_source",
            title: `New: ${query}`,
            body: `A source about ${query}, published while the email waited for approval.`,
          },
        ];
  }
  return [
    {
      op: "put-doc",
      id: "doc_eval_migration_runbook",
      title: "Migration runbook",
      body: "Every migration: take a snapshot first, run it in a maintenance window, keep the down migration ready.",
    },
  ];
}
