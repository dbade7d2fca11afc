// Which trace events a finished run keeps when retention compacts it (lib/retention/purge-finished-runs.ts).
//
// The test: an event is audit when it answers "who or what changed the run's course or the world, and on
// whose authority?" — the questions asked of a run months later. What only explains *how* a step was
// computed (the model's reasoning, reads, timers, transient retries) is trace detail and goes. The rows
// that are audit by themselves are never touched: effect intents (with the decision that produced each
// call), decision packets and their approvals, signals, and the run's final state (the Run row and its
// last checkpoint: facts with provenance, approvals, usage totals).
//
// Kept always:
//   run.created                 who started the run, with which agent version and input
//   run.status                  every transition, with the error that ended a failed run
//   run.completed               the run's output
//   run.cancelled / run.retried / run.resumed / run.forked / run.upgraded   an operator's act, and who did it
//   agent.version_changed       the run stopped because another version of its agent was deployed (older runs)
//   agent.version_gone / agent.version_cancelled   its version was no longer loaded: parked on a packet, and cancelled by a person
//   gate.*                      requested, assigned, approval_recorded, decided, acting, mismatch, stale,
//                               refused, escalated, expired: the human gate, end to end
//   budget.*                    reached, extended, stopped: the run's budget and the person who extended or stopped it
//   effect.intent / effect.lookup / effect.recovering / effect.unknown_outcome   the effect protocol: what
//                               was about to change the world, and how a "may have happened" was settled
//   effect.awaiting_caller      an open gate's approved action handed to the caller who executes it
//   tool.rejected               the agent asked for a tool outside its grant, or with malformed arguments
//   signal.received / signal.consumed / signal.timeout   an outside system (or its deadline) moved the run
//   run.spawned_by / child.*    a child run: which run's step started it; started, completed (its outcome), refused
// Kept when:
//   tool.call                   the tool is not a pure read: the call that changed (or may have changed)
//                               the world, with arguments, attempt, idempotency key, receipt or error class
//   permission.checked          the effect is not "allow": authority refused (deny) or escalated to a person;
//                               or an allow whose skip-the-gate predicates let it through (gateSkippedBy)
// Dropped (trace detail):
//   model.decision              the reasoning of every step; the decisions that produced an effect are kept
//                               on their intent row, and token/cost totals in the state's usage
//   model.turn_next / model.turn_dropped   the rest of a model turn taken, or dropped (turns.ts); the same
//                               decisions are on model.decision and, when they act, on their intent row
//   model.replayed / model.replay_ended    a fork replaying its source's decisions, and where it diverged
//   policy.error                a policy's failure; the run.status that it led to carries the error
//   tool.call of a pure read    observations; their results live on as facts (with provenance) in the state
//   permission.checked "allow"  the routine grant before each call
//   evidence.rechecked          reads before acting on an approval; the outcome is gate.acting / gate.stale
//   effect.lookup_failed        a transient failure to reconcile; the outcome is effect.lookup / unknown_outcome
//   timer.set / timer.fired / signal.waiting   scheduling; the run.status transitions show the waits
//   signal.duplicate            a redelivered callback that changed nothing
// An event type not listed here is kept: nothing is deleted until someone has decided it is not audit.

export const AUDIT_EVENT_TYPES = [
  "run.created",
  "run.status",
  "run.completed",
  "run.cancelled",
  "run.retried",
  "run.resumed",
  "run.forked",
  "run.upgraded",
  "agent.version_changed",
  "agent.version_gone",
  "agent.version_cancelled",
  "effect.intent",
  "effect.lookup",
  "effect.recovering",
  "effect.unknown_outcome",
  "effect.awaiting_caller",
  "tool.rejected",
  "signal.received",
  "signal.consumed",
  "signal.timeout",
  "run.spawned_by",
] as const;
export const AUDIT_EVENT_PREFIXES = ["gate.", "budget.", "child."] as const;

/** Kept or dropped by their data (isAuditEvent). */
export const CONDITIONAL_EVENT_TYPES = ["tool.call", "permission.checked"] as const;

export const TRACE_ONLY_EVENT_TYPES = [
  "model.decision",
  "model.turn_next",
  "model.turn_dropped",
  "model.replayed",
  "model.replay_ended",
  "policy.error",
  "evidence.rechecked",
  "effect.lookup_failed",
  "timer.set",
  "timer.fired",
  "signal.waiting",
  "signal.duplicate",
] as const;

export type EventClass = "audit" | "conditional" | "trace" | "unlisted";

/** Which list a type is on (a test holds every type the engine writes to being on one). */
export function classifyEventType(type: string): EventClass {
  if ((AUDIT_EVENT_TYPES as readonly string[]).includes(type) || AUDIT_EVENT_PREFIXES.some((p) => type.startsWith(p)))
    return "audit";
  if ((CONDITIONAL_EVENT_TYPES as readonly string[]).includes(type)) return "conditional";
  if ((TRACE_ONLY_EVENT_TYPES as readonly string[]).includes(type)) return "trace";
  return "unlisted";
}

/** Does a finished run keep this event when it is compacted? */
export function isAuditEvent(type: string, data: unknown): boolean {
  const fields = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
  if (type === "tool.call") return fields.semantics !== "pure-read";
  if (type === "permission.checked") return fields.effect !== "allow" || Array.isArray(fields.gateSkippedBy);
  return classifyEventType(type) !== "trace";
}
