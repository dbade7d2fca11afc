import type { RunStatus } from "@/lib/runtime/types";

// A LangGraph thread is a Tether run; its status is one of the protocol's four, from the run's status and
// whether an approval packet of the run is pending:
// - interrupted: a decision packet of kind APPROVAL is PENDING (whatever the run's status says);
// - busy: the run is queued, running, or parked on something that is not a person (an event, a timer),
//   or it waits for a worker to pick up a decision already made (WAITING_APPROVAL with nothing pending);
// - idle: the run completed;
// - error: the run failed, was cancelled, or needs attention (an effect whose outcome is unknown: its
//   choices — it happened, run it again, skip it — have no Agent Inbox equivalent, so it is decided in
//   Tether's console and is not offered as an interrupt).

export const THREAD_STATUSES = ["idle", "busy", "interrupted", "error"] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

export const RUN_STATUSES_BY_THREAD_STATUS: Record<Exclude<ThreadStatus, "interrupted">, readonly RunStatus[]> = {
  busy: ["QUEUED", "RUNNING", "WAITING_APPROVAL", "WAITING_EVENT", "SLEEPING"],
  idle: ["COMPLETED"],
  error: ["FAILED", "CANCELLED", "NEEDS_ATTENTION"],
};

export function threadStatusOf(runStatus: RunStatus, hasPendingApproval: boolean): ThreadStatus {
  if (hasPendingApproval) return "interrupted";
  if (RUN_STATUSES_BY_THREAD_STATUS.idle.includes(runStatus)) return "idle";
  if (RUN_STATUSES_BY_THREAD_STATUS.error.includes(runStatus)) return "error";
  return "busy";
}
