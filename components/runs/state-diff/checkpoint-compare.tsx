import type { CheckpointSummary } from "@/lib/queries/run-checkpoints";

type CheckpointCompareProps = { runId: string; checkpoints: CheckpointSummary[]; from?: number; to?: number };

// A GET form: the two checkpoints are in the URL, so a diff can be linked to.
export function CheckpointCompare({ runId, checkpoints, from, to }: CheckpointCompareProps) {
  if (checkpoints.length < 2) return <p className="text-sm text-zinc-600">Two checkpoints are needed to compare.</p>;
  const latest = checkpoints.at(-1)!.seq;
  const select =
    "block rounded border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900 focus:outline-2 focus:outline-blue-600";
  const options = checkpoints.toReversed().map((c) => (
    <option key={c.seq} value={c.seq}>
      #{c.seq} · step {c.step}
    </option>
  ));
  return (
    <form action={`/runs/${encodeURIComponent(runId)}`} method="get" className="flex flex-wrap items-end gap-2">
      <div>
        <label htmlFor="compare-from" className="mb-1 block text-xs font-medium text-zinc-700">
          From checkpoint
        </label>
        <select id="compare-from" name="from" defaultValue={from ?? checkpoints.at(-2)!.seq} className={select}>
          {options}
        </select>
      </div>
      <div>
        <label htmlFor="compare-to" className="mb-1 block text-xs font-medium text-zinc-700">
          To checkpoint
        </label>
        <select id="compare-to" name="to" defaultValue={to ?? latest} className={select}>
          {options}
        </select>
      </div>
      <button
        type="submit"
        className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium text-zinc-800 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
      >
        Compare
      </button>
    </form>
  );
}
