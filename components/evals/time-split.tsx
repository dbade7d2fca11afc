import { formatMs, humanShare } from "./format";

/** Wall time split into waiting for people and machine time: the two mean very different things. */
export function TimeSplit({ humanWaitMs, machineMs }: { humanWaitMs: number; machineMs: number }) {
  const share = humanShare(humanWaitMs, machineMs);
  return (
    <div>
      <div aria-hidden className="flex h-2.5 w-full overflow-hidden rounded bg-zinc-100">
        <div className="bg-amber-500" style={{ width: `${share * 100}%` }} />
        <div className="bg-blue-700" style={{ width: `${(1 - share) * 100}%` }} />
      </div>
      <p className="mt-1 flex flex-wrap gap-x-4 text-xs text-zinc-700">
        <span>
          <span aria-hidden className="mr-1 inline-block size-2 rounded-sm bg-amber-500" />
          human wait {formatMs(humanWaitMs)}
        </span>
        <span>
          <span aria-hidden className="mr-1 inline-block size-2 rounded-sm bg-blue-700" />
          machine {formatMs(machineMs)}
        </span>
      </p>
    </div>
  );
}
