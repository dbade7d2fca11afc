import { StatusBadge } from "@/components/ui/status-badge";
import type { RunFamily, RunLink } from "@/lib/queries/run-family";
import { RunIdLink } from "./run-id-link";

function RunLinkItem({ run, step }: { run: RunLink; step?: number | null }) {
  return (
    <>
      <RunIdLink runId={run.id} className="font-mono text-blue-700 hover:underline" />{" "}
      <span className="text-zinc-600">
        ({run.agentSlug}
        {step != null ? `, step ${step}` : ""})
      </span>{" "}
      <StatusBadge status={run.status} />
    </>
  );
}

/** Parent ↔ child links on a run page: the run that started this one, and the runs this one started. */
export function RunFamilyLinks({ family }: { family: RunFamily }) {
  if (!family.parent && family.children.length === 0) return null;
  return (
    <div className="mt-3 space-y-1 text-xs text-zinc-500" data-testid="run-family">
      {family.parent && (
        <p>
          Child run of <RunLinkItem run={family.parent} step={family.parent.spawnedAtStep} />
        </p>
      )}
      {family.children.length > 0 && (
        <div>
          <p>Child runs</p>
          <ul className="mt-1 space-y-1">
            {family.children.map((child) => (
              <li key={child.id}>
                <RunLinkItem run={child} step={child.spawnedAtStep} />
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
