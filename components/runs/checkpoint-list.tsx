import Link from "next/link";
import { Timestamp } from "@/components/ui/timestamp";
import type { CheckpointSummary } from "@/lib/queries/run-checkpoints";

type CheckpointListProps = { runId: string; checkpoints: CheckpointSummary[]; selectedSeq: number | null; hasOlder?: boolean };

/** Every checkpoint is kept; choosing one shows the run's state as it was then. */
export function CheckpointList({ runId, checkpoints, selectedSeq, hasOlder = false }: CheckpointListProps) {
  const base = `/runs/${encodeURIComponent(runId)}`;
  const itemClass = (isSelected: boolean) =>
    `flex items-center justify-between gap-2 rounded px-2 py-1 text-sm ${isSelected ? "bg-zinc-900 text-white" : "text-zinc-700 hover:bg-zinc-100"}`;
  return (
    <ol className="max-h-[32rem] space-y-0.5 overflow-y-auto">
      <li>
        <Link href={base} scroll={false} aria-current={selectedSeq === null ? "true" : undefined} className={itemClass(selectedSeq === null)}>
          <span>Current state</span>
        </Link>
      </li>
      {checkpoints.toReversed().map((checkpoint) => (
        <li key={checkpoint.seq}>
          <Link
            href={`${base}?checkpoint=${checkpoint.seq}`}
            scroll={false}
            aria-current={selectedSeq === checkpoint.seq ? "true" : undefined}
            className={itemClass(selectedSeq === checkpoint.seq)}
          >
            <span className="font-mono text-xs">
              #{checkpoint.seq} · step {checkpoint.step}
            </span>
            <Timestamp value={checkpoint.createdAt} className={`text-xs ${selectedSeq === checkpoint.seq ? "text-zinc-300" : "text-zinc-600"}`} />
          </Link>
        </li>
      ))}
      {checkpoints.length === 0 && <li className="px-2 py-1 text-sm text-zinc-500">No checkpoints yet.</li>}
      {hasOlder && (
        <li className="px-2 py-1 text-xs text-zinc-500">
          Checkpoints before #{checkpoints[0]?.seq} are not listed: open one by its number with <span className="font-mono">?checkpoint=</span> in this page&apos;s address.
        </li>
      )}
    </ol>
  );
}
