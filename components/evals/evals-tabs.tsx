import { ConsoleLink } from "@/components/shell/console-links";

// The Evals section's own navigation: eval runs (with the score chart), datasets, compare.
const TABS = [
  { key: "runs", href: "/evals", label: "Eval runs" },
  { key: "datasets", href: "/evals/datasets", label: "Datasets" },
  { key: "compare", href: "/evals/compare", label: "Compare" },
] as const;

export type EvalsTab = (typeof TABS)[number]["key"];

export function EvalsTabs({ active }: { active: EvalsTab }) {
  return (
    <nav aria-label="Evals" className="mb-5 flex gap-1 border-b border-zinc-200">
      {TABS.map((tab) => {
        const isActive = tab.key === active;
        return (
          <ConsoleLink
            key={tab.key}
            href={tab.href}
            aria-current={isActive ? "page" : undefined}
            className={`-mb-px border-b-2 px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-blue-600 ${
              isActive
                ? "border-blue-700 font-medium text-zinc-900"
                : "border-transparent text-zinc-600 hover:border-zinc-300 hover:text-zinc-900"
            }`}
          >
            {tab.label}
          </ConsoleLink>
        );
      })}
    </nav>
  );
}
