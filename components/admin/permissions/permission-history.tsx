import { EmptyState } from "@/components/ui/empty-state";
import { Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import { describeChange, type PermissionChangeView } from "@/lib/queries/permissions";
import { stepLabel } from "./effect-badge";

/** Who changed which rule when, and what changed (before → after). Within one cell, rules differ only by step. */
export function PermissionHistory({
  changes,
  caption,
  isCell = false,
}: {
  changes: PermissionChangeView[];
  caption: string;
  isCell?: boolean;
}) {
  if (changes.length === 0)
    return (
      <EmptyState title="No changes yet">
        Every change of a rule is recorded here: who, when, before and after.
      </EmptyState>
    );
  return (
    // Its own scroll container, focusable so keyboard users can scroll a wide history (the rows hold no links).
    <div
      role="region"
      aria-label={caption}
      tabIndex={0}
      className="overflow-x-auto rounded-lg border border-zinc-200 bg-white shadow-xs focus-visible:outline-2 focus-visible:outline-blue-600"
    >
      <table className="w-full border-collapse text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            <Th>When</Th>
            <Th>Who</Th>
            <Th>{isCell ? "Step" : "Rule"}</Th>
            <Th>Version</Th>
            <Th>Change</Th>
          </tr>
        </thead>
        <tbody>
          {changes.map((change) => (
            <tr key={change.id}>
              <Td>
                <Timestamp value={change.at} />
              </Td>
              <Td>{change.changedBy}</Td>
              <Td>{isCell ? stepLabel(change.step) : <code className="font-mono text-xs">{change.rule}</code>}</Td>
              <Td>v{change.version}</Td>
              <Td>
                <ul className="space-y-0.5 text-xs">
                  {describeChange(change.before, change.after).map((line) => (
                    <li key={line}>{line}</li>
                  ))}
                </ul>
              </Td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
