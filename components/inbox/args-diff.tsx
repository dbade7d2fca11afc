import { compactJson } from "@/components/ui/json-view";
import type { DiffEntry } from "@/lib/inbox/diff";

/** An edit against the proposal: one line per changed argument, before struck through, after in green. */
export function ArgsDiff({
  entries,
  label = "Changes against the proposal",
}: {
  entries: DiffEntry[];
  label?: string;
}) {
  if (entries.length === 0) {
    return <p className="text-sm text-zinc-600">No changes yet: the arguments are the proposal&apos;s.</p>;
  }
  return (
    <ul aria-label={label} className="space-y-1 rounded border border-zinc-200 bg-zinc-50 p-2 font-mono text-xs">
      {entries.map((entry) => (
        <li key={entry.path} className="flex flex-wrap items-baseline gap-x-2">
          <span className="font-semibold text-zinc-900">{entry.path}</span>
          {entry.kind !== "added" && (
            <del className="text-red-800">
              <span className="sr-only">was </span>
              {compactJson(entry.before, 80)}
            </del>
          )}
          {entry.kind === "changed" && <span aria-hidden>→</span>}
          {entry.kind !== "removed" ? (
            <ins className="text-emerald-800 no-underline">
              <span className="sr-only">now </span>
              {compactJson(entry.after, 80)}
            </ins>
          ) : (
            <span className="text-zinc-500">(removed)</span>
          )}
        </li>
      ))}
    </ul>
  );
}
