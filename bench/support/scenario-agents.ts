import { z } from "zod";
import type { AgentDefinition, Logger, Runtime, ToolDefinition } from "../../lib/runtime";
import { externalGateAgent } from "../../lib/agents/external-gate";
import { payload, readTool } from "./workload";

// Agents and tools of the concurrency scenarios (bench/scenarios/*), next to workload.ts's bench-pure
// and bench-effect. Scripted (no model): what is measured is the engine, not a policy.
//   bench-slow  : `steps` calls of bench.slow, a read that waits `ms` (an I/O-bound tool: a model, an API)
//   bench-gate  : `steps` calls of bench.read, which its permission puts behind a person's approval
//   bench-sleep : sleeps `sleepMs` (a timer), then completes

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many bench.slow calls are waiting right now, the most at once, and how many began (in this process). */
export const slowCalls = { active: 0, peak: 0, started: 0 };

export const slowTool: ToolDefinition<{ i: number; ms: number }> = {
  name: "bench.slow",
  description: "a read that waits `ms` before returning a ~1 KB order",
  capability: "read",
  semantics: "pure-read",
  input: z.object({ i: z.number().int(), ms: z.number().int().nonnegative() }),
  impact: ({ i }) => `slow bench call ${i}`,
  run: async ({ i, ms }) => {
    slowCalls.active++;
    slowCalls.peak = Math.max(slowCalls.peak, slowCalls.active);
    slowCalls.started++;
    try {
      await wait(ms);
      return payload(i);
    } finally {
      slowCalls.active--;
    }
  },
};

export type ScenarioInput = { tag: string; steps: number; ms?: number; sleepMs?: number };
const input = z.object({
  tag: z.string(),
  steps: z.number().int().nonnegative(),
  ms: z.number().int().nonnegative().optional(),
  sleepMs: z.number().int().positive().optional(),
});

function callingAgent(
  slug: string,
  tool: string,
  args: (step: number, input: ScenarioInput) => Record<string, unknown>,
): AgentDefinition<ScenarioInput> {
  return {
    slug,
    version: "1",
    name: slug,
    description: "benchmark agent (concurrency scenarios)",
    instructions: `Call ${tool} \`steps\` times, then complete.`,
    input,
    tools: [tool],
    maxSteps: 100_000,
    policy: {
      async decide({ state }) {
        const run = state.input as ScenarioInput;
        return state.step < run.steps
          ? { decision: { kind: "call", tool, args: args(state.step, run), resultKey: "order", evidence: [] } }
          : { decision: { kind: "complete", output: { steps: state.step } } };
      },
    },
  };
}

export const slowAgent = callingAgent("bench-slow", slowTool.name, (i, run) => ({ i, ms: run.ms ?? 500 }));
export const gateAgent = callingAgent("bench-gate", readTool.name, (i) => ({ i }));
export const sleepAgent: AgentDefinition<ScenarioInput> = {
  slug: "bench-sleep",
  version: "1",
  name: "bench-sleep",
  description: "benchmark agent (a timer)",
  instructions: "Sleep, then complete.",
  input,
  tools: [],
  maxSteps: 100,
  policy: {
    async decide({ state }) {
      const run = state.input as ScenarioInput;
      return state.step === 0
        ? { decision: { kind: "sleep", durationMs: run.sleepMs ?? 3_600_000, reason: "bench: a long timer" } }
        : { decision: { kind: "complete", output: { slept: true } } };
    },
  },
};

// The open gate's agent (lib/agents/external-gate.ts) for the opengate scenario: it brings its own tool per run.
export const scenarioOptions = (logger?: Logger) => ({
  agents: [slowAgent, gateAgent, sleepAgent, externalGateAgent],
  tools: [slowTool],
  logger,
});

/** The grants the scenarios rely on: bench.slow allowed, bench-gate's read behind an approval. */
export async function grantScenarioAgents(runtime: Runtime) {
  await runtime.permissions.put({ agent: slowAgent.slug, tool: slowTool.name, effect: "allow" }, { by: "bench" });
  await runtime.permissions.put(
    { agent: gateAgent.slug, tool: readTool.name, effect: "require_approval" },
    { by: "bench" },
  );
}

/** A logger that keeps the engine's warnings and errors (the runtime is silent by default): a
 *  scenario that hides a failed step or a lost lease would report figures for work not done. */
export function collectingLogger() {
  const lines: string[] = [];
  const logger: Logger = {
    info() {},
    warn: (msg, data) => void lines.push(`warn: ${msg} ${data ? JSON.stringify(data).slice(0, 300) : ""}`),
    error: (msg, data) => void lines.push(`error: ${msg} ${data ? JSON.stringify(data).slice(0, 300) : ""}`),
  };
  return { logger, lines };
}
