// Cost and latency per step, read from a list of trace events in memory (the model of the database summary): model.decision events hold the
// model's usage (tokens, cost — lib/agents' model policy prices them), tool.call events the call's
// latency. The run page no longer holds a whole trace: the database counts it (lib/queries/
// run-trace-summary.ts), and this reading is the model those queries are held to (tests/run-trace-summary.int.test.ts).
import type { TimelineEvent } from "../../lib/queries/run-events";
import type { StepMetrics } from "../../lib/queries/run-trace-summary";

export type RunMetrics = { steps: StepMetrics[]; totals: Omit<StepMetrics, "step"> };

const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);

export function computeStepMetrics(events: TimelineEvent[]): RunMetrics {
  const byStep = new Map<number, StepMetrics>();
  const at = (step: number) => {
    let metrics = byStep.get(step);
    if (!metrics)
      byStep.set(
        step,
        (metrics = { step, modelCalls: 0, tokens: 0, costUsd: 0, toolCalls: 0, toolLatencyMs: 0, toolErrors: 0 }),
      );
    return metrics;
  };
  for (const event of events) {
    if (event.step < 0) continue; // run-level events carry no cost
    if (event.type === "model.decision") {
      const usage = (event.data.usage ?? null) as Record<string, unknown> | null;
      const metrics = at(event.step);
      metrics.modelCalls += 1;
      if (usage) {
        metrics.tokens += num(usage.inputTokens) + num(usage.outputTokens);
        metrics.costUsd += num(usage.costUsd);
      }
    } else if (event.type === "tool.call") {
      const metrics = at(event.step);
      metrics.toolCalls += 1;
      metrics.toolLatencyMs += num(event.data.latencyMs);
      if (event.data.errorClass) metrics.toolErrors += 1;
    }
  }
  const steps = [...byStep.values()].sort((a, b) => a.step - b.step);
  const totals = steps.reduce(
    (sum, s) => ({
      modelCalls: sum.modelCalls + s.modelCalls,
      tokens: sum.tokens + s.tokens,
      costUsd: sum.costUsd + s.costUsd,
      toolCalls: sum.toolCalls + s.toolCalls,
      toolLatencyMs: sum.toolLatencyMs + s.toolLatencyMs,
      toolErrors: sum.toolErrors + s.toolErrors,
    }),
    { modelCalls: 0, tokens: 0, costUsd: 0, toolCalls: 0, toolLatencyMs: 0, toolErrors: 0 },
  );
  return { steps, totals };
}
