import { ConsoleLink } from "@/components/shell/console-links";
import { StatusBadge, statusLabel } from "@/components/ui/status-badge";
import type { RunStatus } from "@/lib/runtime/types";

/** The status of a packet's run, as a link to the run (named for screen readers by its id and status). */
export function RunStatusLink({ runId, status }: { runId: string; status: RunStatus }) {
  return (
    <ConsoleLink href={`/runs/${encodeURIComponent(runId)}`} aria-label={`Run ${runId}: ${statusLabel(status)}`}>
      <StatusBadge status={status} />
    </ConsoleLink>
  );
}
