import type { ReactNode } from "react";
import type {
  RecoveryItem as RecoveryItemData,
  RecoveryView as RecoveryViewData,
  SafeNextAction,
} from "@/lib/runtime/recovery";
import { RecoveryItem } from "./recovery-item";

function Column({
  title,
  hint,
  accent,
  children,
}: {
  title: string;
  hint: string;
  accent: string;
  children: ReactNode;
}) {
  return (
    <section className={`rounded-lg border border-zinc-200 border-t-4 bg-white p-3 shadow-xs ${accent}`}>
      <h3 className="text-sm font-semibold text-zinc-900">{title}</h3>
      <p className="mb-2 text-xs text-zinc-500">{hint}</p>
      {children}
    </section>
  );
}

function Items({ items, empty }: { items: RecoveryItemData[]; empty: string }) {
  if (items.length === 0) return <p className="text-sm text-zinc-500">{empty}</p>;
  return (
    <ul className="space-y-2">
      {items.map((item) => (
        <RecoveryItem key={item.operationId} item={item} />
      ))}
    </ul>
  );
}

type Outcome = "definitelyHappened" | "mayHaveHappened" | "definitelyNotHappened";

// The words of each outcome's column: its title, what puts an effect there, its colour, and what it says when empty.
const OUTCOME_COLUMNS: Record<Outcome, { title: string; hint: string; accent: string; empty: string }> = {
  definitelyHappened: {
    title: "Definitely happened",
    hint: "Committed with a result or resolved by a person",
    accent: "border-t-emerald-500",
    empty: "No effects yet.",
  },
  mayHaveHappened: {
    title: "May have happened",
    hint: "An intent without a recorded outcome",
    accent: "border-t-amber-500",
    empty: "Nothing in doubt.",
  },
  definitelyNotHappened: {
    title: "Definitely did not happen",
    hint: "The tool refused the call; the world did not change",
    accent: "border-t-zinc-400",
    empty: "No refused calls.",
  },
};

function OutcomeColumn({ outcome, view }: { outcome: Outcome; view: RecoveryViewData }) {
  const { empty, ...column } = OUTCOME_COLUMNS[outcome];
  return (
    <Column {...column}>
      <Items items={view[outcome]} empty={empty} />
    </Column>
  );
}

const ACTION_LABEL: Record<SafeNextAction["action"], string> = {
  wait: "Wait",
  resume: "Resume",
  retry_with_same_key: "Retry, same key",
  reconcile: "Reconcile",
  ask_human: "Ask a person",
  decide_packet: "Decide",
  retry_run: "Retry the run",
  none: "Nothing",
};

/** What definitely happened, what may have happened, and what is safe next (docs/design.md). */
export function RecoveryView({ view }: { view: RecoveryViewData }) {
  return (
    <div className="space-y-3">
      <div className="grid gap-3 lg:grid-cols-3">
        <OutcomeColumn outcome="definitelyHappened" view={view} />
        <OutcomeColumn outcome="mayHaveHappened" view={view} />
        <Column title="Safe next" hint="What the runtime or a person can do without risk" accent="border-t-blue-500">
          <ul className="space-y-2">
            {view.safeNext.map((next, i) => (
              <li key={i} className="rounded-md border border-zinc-200 p-2.5">
                <p className="text-xs font-semibold tracking-wide text-blue-800 uppercase">
                  {ACTION_LABEL[next.action] ?? next.action}
                </p>
                <p className="mt-0.5 text-sm text-zinc-700 [overflow-wrap:anywhere]">{next.description}</p>
              </li>
            ))}
          </ul>
        </Column>
      </div>
      <OutcomeColumn outcome="definitelyNotHappened" view={view} />
    </div>
  );
}
