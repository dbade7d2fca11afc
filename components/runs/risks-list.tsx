import type { RunState } from "@/lib/runtime/state";

/** The risks the agent noted in its state, each with its level. */
export function RisksList({ risks }: { risks: RunState["risks"] }) {
  return (
    <ul className="list-disc space-y-0.5 pl-5 text-sm text-zinc-700">
      {risks.map((risk) => (
        <li key={risk.id}>
          {risk.description} <span className="text-xs text-zinc-500">({risk.level})</span>
        </li>
      ))}
    </ul>
  );
}
