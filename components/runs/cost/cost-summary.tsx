"use client";
import { LabelledValue } from "@/components/ui/labelled-value";
import { useRunLive } from "../live/run-live";
import { formatDuration } from "../timeline/trace-model";
import { BarChart } from "./bar-chart";

const Figure = ({ label, value }: { label: string; value: string }) => (
  <LabelledValue label={label} className="text-base font-semibold text-zinc-900 tabular-nums">
    {value}
  </LabelledValue>
);

/** The per-step charts: which metric of a step each one draws. */
const PER_STEP_CHARTS: Array<{ metric: "toolLatencyMs" | "tokens"; title: string; unit: string; color: string }> = [
  { metric: "toolLatencyMs", title: "Tool latency per step", unit: "ms", color: "#1d4ed8" },
  { metric: "tokens", title: "Tokens per step", unit: "tokens", color: "#7c3aed" },
];

/** Cost and latency of the run so far, counted over its whole trace by the server: per-step tool latency and model tokens. */
export function CostSummary() {
  const { steps, totals, firstAt, lastAt } = useRunLive().summary;
  const elapsedMs = firstAt && lastAt ? Date.parse(lastAt) - Date.parse(firstAt) : 0;
  return (
    <section aria-labelledby="cost-heading" className="rounded-lg border border-zinc-200 bg-white p-4 shadow-xs">
      <h2 id="cost-heading" className="mb-3 text-sm font-semibold text-zinc-900">
        Cost and latency
      </h2>
      <dl className="mb-4 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <Figure label="Model calls" value={String(totals.modelCalls)} />
        <Figure label="Tokens" value={totals.tokens.toLocaleString("en")} />
        <Figure label="Model cost" value={`$${totals.costUsd.toFixed(4)}`} />
        <Figure
          label="Tool calls"
          value={`${totals.toolCalls}${totals.toolErrors ? ` (${totals.toolErrors} failed)` : ""}`}
        />
        <Figure label="Time in tools" value={formatDuration(totals.toolLatencyMs)} />
        <Figure label="Wall clock" value={formatDuration(elapsedMs)} />
      </dl>
      {steps.length === 0 ? (
        <p className="text-sm text-zinc-600">No steps yet.</p>
      ) : (
        <div className="grid gap-4 md:grid-cols-2">
          {PER_STEP_CHARTS.map(({ metric, ...chart }) => (
            <BarChart
              key={metric}
              {...chart}
              format={(v) => v.toLocaleString("en")}
              values={steps.map((s) => ({ label: `step ${s.step}`, value: s[metric] }))}
            />
          ))}
        </div>
      )}
    </section>
  );
}
