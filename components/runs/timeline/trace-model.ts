// The trace timeline's model, pure so it is unit-tested: what kind each event is, the filter, the rows
// (grouped by step, with the waits a person caused shown as their own rows) and one line per event.
import type { TimelineEvent } from "@/lib/queries/run-events";

/** Each kind of event with its label in the filter, in the filter's order: the kinds are written once, here. */
export const EVENT_KIND_LABEL = {
  model: "Model decisions",
  tool: "Tool calls",
  permission: "Permission checks",
  gate: "Gates",
  decision: "Human decisions",
  state: "State transitions",
} as const;
export type EventKind = keyof typeof EVENT_KIND_LABEL;
export const EVENT_KINDS = Object.keys(EVENT_KIND_LABEL) as EventKind[];

export function kindOf(type: string): EventKind {
  if (type === "gate.decided" || type === "gate.approval_recorded") return "decision";
  if (type.startsWith("model.") || type.startsWith("policy.")) return "model";
  if (type.startsWith("tool.") || type.startsWith("effect.")) return "tool";
  if (type.startsWith("permission.")) return "permission";
  if (type.startsWith("gate.") || type.startsWith("evidence.")) return "gate";
  return "state"; // run.*, timer.*, signal.*
}

/** Events per kind, from the trace's counts per type (the whole trace, not only the events the page holds). */
export function countByKind(countsByType: Record<string, number>): Record<EventKind, number> {
  const counts = Object.fromEntries(EVENT_KINDS.map((k) => [k, 0])) as Record<EventKind, number>;
  for (const [type, count] of Object.entries(countsByType)) counts[kindOf(type)] += count;
  return counts;
}

export type TimelineFilter = { kinds: ReadonlySet<EventKind>; text: string };

export const ALL_KINDS: ReadonlySet<EventKind> = new Set(EVENT_KINDS);

/** Kind in the chosen set, and the text (case-insensitive) in the type, the summary or the data. */
export function filterEvents(events: TimelineEvent[], filter: TimelineFilter): TimelineEvent[] {
  const text = filter.text.trim().toLowerCase();
  return events.filter((event) => {
    if (!filter.kinds.has(kindOf(event.type))) return false;
    if (!text) return true;
    return (
      event.type.toLowerCase().includes(text) ||
      summarizeEvent(event).toLowerCase().includes(text) ||
      JSON.stringify(event.data).toLowerCase().includes(text)
    );
  });
}

export type TimelineRow =
  | { kind: "step"; key: string; step: number; count: number; startedAt: string }
  | { kind: "event"; key: string; event: TimelineEvent }
  | { kind: "wait"; key: string; fromSeq: number; toSeq: number; waitedMs: number; reason: string };

/** A gap this long between two events is shown as a pause, so "waited 3 days" reads as part of one timeline. */
export const PAUSE_MS = 60_000;

/**
 * Rows in seq order: a step header whenever the step changes (events of the run itself — cancel, a
 * signal arriving — carry step -1 and are grouped as "Run"), and a wait row where the run was paused.
 */
export function buildTimelineRows(events: TimelineEvent[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  let header: Extract<TimelineRow, { kind: "step" }> | null = null;
  let previous: TimelineEvent | null = null;
  for (const event of events) {
    if (previous) {
      const gap = Date.parse(event.at) - Date.parse(previous.at);
      if (gap >= PAUSE_MS)
        rows.push({
          kind: "wait",
          key: `wait-${previous.seq}-${event.seq}`,
          fromSeq: previous.seq,
          toSeq: event.seq,
          waitedMs: gap,
          reason: pauseReason(previous, event),
        });
    }
    if (!header || header.step !== event.step || rows.at(-1)?.kind === "wait") {
      header = { kind: "step", key: `step-${event.seq}`, step: event.step, count: 0, startedAt: event.at };
      rows.push(header);
    }
    header.count += 1;
    rows.push({ kind: "event", key: `event-${event.seq}`, event });
    previous = event;
  }
  return rows;
}

function pauseReason(before: TimelineEvent, after: TimelineEvent): string {
  if (after.type === "gate.decided") return `waiting for a person to decide ${String(after.data.tool ?? "the packet")}`;
  if (before.type === "gate.requested" || (before.type === "run.status" && before.data.to === "WAITING_APPROVAL"))
    return "waiting for approval";
  if (before.type === "signal.waiting" || after.type === "signal.received") return "waiting for an event";
  if (before.type === "timer.set") return "sleeping";
  if (after.type === "run.resumed" || after.type === "run.retried") return "waiting for an operator";
  return "paused";
}

/**
 * The rows as the virtualized list holds them: each event with the step header or wait row just before
 * it. Keyed by the event, an item keeps its key when older events load above it (a header's key would
 * move to the group's new first event), so the list can hold what is on screen in place.
 */
export function groupRowsByEvent(rows: TimelineRow[]): Array<{ key: string; rows: TimelineRow[] }> {
  const items: Array<{ key: string; rows: TimelineRow[] }> = [];
  let leading: TimelineRow[] = [];
  for (const row of rows) {
    if (row.kind !== "event") {
      leading.push(row);
      continue;
    }
    items.push({ key: row.key, rows: [...leading, row] });
    leading = [];
  }
  return items;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} days ${h % 24} h`;
}

const str = (value: unknown) => (value === undefined || value === null ? "" : String(value));

/** One human line per event; the full data stays one click away. */
export function summarizeEvent(event: TimelineEvent): string {
  const d = event.data;
  switch (event.type) {
    case "model.decision": {
      const decision = (d.decision ?? {}) as Record<string, unknown>;
      const usage = d.usage as { inputTokens?: number; outputTokens?: number; costUsd?: number } | null;
      const what = decision.kind === "call" ? `call ${str(decision.tool)}` : str(decision.kind);
      const tokens = usage ? ` · ${(usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)} tokens` : "";
      const queued = Array.isArray(d.queued) ? d.queued.length : 0;
      return `decided: ${what}${queued ? ` (+${queued} more in this turn)` : ""}${tokens}`;
    }
    case "model.turn_next": {
      const decision = (d.decision ?? {}) as Record<string, unknown>;
      const turn = (d.turn ?? {}) as { askedAt?: number; call?: number; of?: number };
      return `next of the turn (call ${str(turn.call)} of ${str(turn.of)}, chosen at step ${str(turn.askedAt)}): ${decision.kind === "call" ? `call ${str(decision.tool)}` : str(decision.kind)}`;
    }
    case "model.turn_dropped":
      return `rest of the turn not made (${(Array.isArray(d.dropped) ? d.dropped : []).map(str).join(", ")}): ${str(d.why)}`;
    case "model.replayed": {
      const decision = (d.decision ?? {}) as Record<string, unknown>;
      return `replayed from ${str(d.from)}: ${decision.kind === "call" ? `call ${str(decision.tool)}` : str(decision.kind)}`;
    }
    case "tool.call":
      return `${str(d.tool)} attempt ${str(d.attempt)} · ${str(d.latencyMs)} ms · ${d.errorClass ? `failed (${str(d.errorClass)}): ${str(d.error)}` : "ok"}`;
    case "permission.checked":
      return `${str(d.tool)}: ${str(d.effect)}${d.reason ? ` — ${str(d.reason)}` : ""}`;
    case "gate.requested":
      return `approval requested for ${str(d.tool)}: ${str(d.impact)}`;
    case "gate.decided":
      return `${str(d.by)} decided ${str(d.decision)} on ${str(d.tool)} after ${formatDuration(Number(d.waitedMs ?? 0))}${d.reason ? ` — ${str(d.reason)}` : ""}${d.instruction ? ` — ${str(d.instruction)}` : ""}`;
    case "gate.refused":
      return `approved ${str(d.tool)} not executed: ${str(d.why)}`;
    case "gate.approval_recorded":
      return `${str(d.by)} approved (${str(d.approvals)} of ${str(d.required)})`;
    case "run.status":
      return `${str(d.from)} → ${str(d.to)}${d.error ? `: ${str(d.error)}` : ""}`;
    case "run.cancelled":
    case "run.resumed":
    case "run.retried":
      return `by ${str(d.by)}${d.reason ? ` — ${str(d.reason)}` : ""}`;
    case "run.forked":
      return `forked from ${str(d.from)} at checkpoint #${str(d.checkpointSeq)}`;
    case "effect.intent":
      return `intent for ${str(d.tool)} (${str(d.semantics)}) · key ${str(d.idempotencyKey)}`;
    default:
      return d.tool ? str(d.tool) : "";
  }
}
