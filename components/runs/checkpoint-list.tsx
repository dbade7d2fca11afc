import { ConsoleLink } from "@/components/shell/console-links";
import { Timestamp } from "@/components/ui/timestamp";
import type { CheckpointSummary } from "@/lib/queries/run-checkpoints";

/** The older checkpoints not listed yet, and how to read the next page of them. */
type OlderCheckpoints = { hasOlder: boolean; isLoading: boolean; load: () => void; error: string | null };

type CheckpointListProps = {
  runId: string;
  checkpoints: CheckpointSummary[];
  selectedSeq: number | null;
  older: OlderCheckpoints;
};

/** Every checkpoint is kept, newest first, a page at a time; choosing one shows the run's state as it was then. */
export function CheckpointList({ runId, checkpoints, selectedSeq, older }: CheckpointListProps) {
  const base = `/runs/${encodeURIComponent(runId)}`;
  const itemClass = (isSelected: boolean) =>
    `flex items-center justify-between gap-2 rounded px-2 py-1 text-sm ${isSelected ? "bg-zinc-900 text-white" : "text-zinc-700 hover:bg-zinc-100"}`;
  return (
    <ol className="max-h-[32rem] space-y-0.5 overflow-y-auto">
      <li>
        <ConsoleLink
          href={base}
          scroll={false}
          aria-current={selectedSeq === null ? "true" : undefined}
          className={itemClass(selectedSeq === null)}
        >
          <span>Current state</span>
        </ConsoleLink>
      </li>
      {checkpoints.toReversed().map((checkpoint) => (
        <li key={checkpoint.seq}>
          <ConsoleLink
            href={`${base}?checkpoint=${checkpoint.seq}`}
            scroll={false}
            aria-current={selectedSeq === checkpoint.seq ? "true" : undefined}
            className={itemClass(selectedSeq === checkpoint.seq)}
          >
            <span className="font-mono text-xs">
              #{checkpoint.seq} · step {checkpoint.step}
            </span>
            <Timestamp
              value={checkpoint.createdAt}
              className={`text-xs ${selectedSeq === checkpoint.seq ? "text-zinc-300" : "text-zinc-600"}`}
            />
          </ConsoleLink>
        </li>
      ))}
      {checkpoints.length === 0 && <li className="px-2 py-1 text-sm text-zinc-500">No checkpoints yet.</li>}
      {older.hasOlder && (
        <li className="px-2 py-1">
          <button
            type="button"
            onClick={older.load}
            disabled={older.isLoading}
            className="text-xs text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 disabled:text-zinc-500 disabled:no-underline"
          >
            {older.isLoading ? "Loading older checkpoints…" : "Show older checkpoints"}
          </button>
        </li>
      )}
      {older.error && (
        <li className="px-2 py-1 text-xs text-red-800" role="alert">
          {older.error}
        </li>
      )}
    </ol>
  );
}
