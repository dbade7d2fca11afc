import type { DecisionOutcome } from "./use-decide-packet";

const ERROR_STYLE = {
  race: "border-amber-300 bg-amber-50 text-amber-950",
  expired: "border-zinc-300 bg-zinc-100 text-zinc-900",
  stale: "border-orange-300 bg-orange-50 text-orange-950",
} as const;

/** The result of a decision: success politely, a problem assertively, each kind of problem in its own colour. */
export function DecisionOutcomeMessage({ outcome }: { outcome: DecisionOutcome }) {
  const style =
    outcome.tone === "success"
      ? "border-emerald-300 bg-emerald-50 text-emerald-900"
      : ((ERROR_STYLE as Record<string, string>)[outcome.kind] ?? "border-red-300 bg-red-50 text-red-900");
  return (
    <div
      role={outcome.tone === "error" ? "alert" : "status"}
      data-kind={outcome.tone === "error" ? outcome.kind : "success"}
      className={`mt-3 rounded border px-3 py-2 text-sm ${style}`}
    >
      {outcome.message}
    </div>
  );
}
