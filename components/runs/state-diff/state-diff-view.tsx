import { compactJson } from "@/components/ui/json-view";
import { diffJson, formatPath, type DiffEntry } from "./json-diff";

const OP_STYLE: Record<DiffEntry["op"], { label: string; className: string; sign: string }> = {
  added: { label: "added", className: "border-l-emerald-600 bg-emerald-50", sign: "+" },
  removed: { label: "removed", className: "border-l-red-600 bg-red-50", sign: "−" },
  changed: { label: "changed", className: "border-l-amber-600 bg-amber-50", sign: "~" },
};

/** What changed in the run's state between two checkpoints, one line per changed path. */
export function StateDiffView({
  before,
  after,
  fromSeq,
  toSeq,
}: {
  before: unknown;
  after: unknown;
  fromSeq: number;
  toSeq: number;
}) {
  // The journal of recorded clock readings and ids is bookkeeping for replay, not state a person reasons about.
  const entries = diffJson(before, after).filter((e) => e.path[0] !== "journal");
  return (
    <section aria-labelledby="diff-heading" className="mt-3">
      <h3 id="diff-heading" className="mb-2 text-sm font-semibold text-zinc-900">
        Checkpoint #{fromSeq} → #{toSeq}: {entries.length} change{entries.length === 1 ? "" : "s"}
      </h3>
      {entries.length === 0 ? (
        <p className="text-sm text-zinc-600">The two states are the same.</p>
      ) : (
        <ul className="max-h-[28rem] space-y-1 overflow-auto" aria-label="State changes">
          {entries.map((entry, i) => {
            const style = OP_STYLE[entry.op];
            return (
              <li key={i} className={`rounded border-l-4 px-2 py-1 font-mono text-xs text-zinc-800 ${style.className}`}>
                <span aria-hidden>{style.sign} </span>
                <span className="font-semibold">{formatPath(entry.path)}</span>{" "}
                <span className="text-zinc-600">{style.label}</span>
                {entry.op !== "added" && (
                  <span className="block break-all text-red-900">before: {compactJson(entry.before, 200)}</span>
                )}
                {entry.op !== "removed" && (
                  <span className="block break-all text-emerald-900">after: {compactJson(entry.after, 200)}</span>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
