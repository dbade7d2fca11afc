import type { RunRecord } from "@/lib/runtime/types";

/**
 * A run's status in one sentence, as the agent protocols (A2A, MCP) tell their clients: how it ended, or what it is.
 * Each protocol says its own states first (a pending packet, a rejection, a sleep) and this for the rest.
 */
export function runStatusSentence(run: Pick<RunRecord, "status" | "error">): string {
  switch (run.status) {
    case "FAILED":
      return `The run failed: ${run.error ?? "no error recorded"}`;
    case "CANCELLED":
      return "The run was cancelled.";
    case "COMPLETED":
      return "The run completed.";
    default:
      return `The run is ${run.status.toLowerCase()}.`;
  }
}
