"use client";
import { useRunLive } from "./run-live";

/** What the running model step is writing, as it streams (gone when the step commits: the trace has it then). */
export function LiveTokens() {
  const { tokens } = useRunLive();
  if (!tokens) return null;
  return (
    <section
      aria-label="Model output"
      aria-live="polite"
      className="mt-4 rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm"
    >
      <p className="mb-1 text-xs font-medium text-emerald-900">
        Step {tokens.step} · the model is writing{tokens.attempt > 1 ? ` (attempt ${tokens.attempt})` : ""}…
      </p>
      {tokens.text && <p className="whitespace-pre-wrap text-zinc-800">{tokens.text}</p>}
      {tokens.tool && (
        <pre className="mt-1 overflow-x-auto text-xs whitespace-pre-wrap text-zinc-700">
          {tokens.tool.name ?? "tool"}({tokens.tool.args})
        </pre>
      )}
    </section>
  );
}
