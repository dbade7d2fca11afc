import { ConsoleLink } from "@/components/shell/console-links";

/** A link to a run's page with the run's id as its text: the run path is written here once. */
export function RunIdLink({ runId, className }: { runId: string; className: string }) {
  return (
    <ConsoleLink href={`/runs/${encodeURIComponent(runId)}`} className={className}>
      {runId}
    </ConsoleLink>
  );
}
