import { randomUUID } from "node:crypto";
import { createDb } from "@/lib/db";
import type { AgentDefinition, FaultPoint, ToolDefinition } from "@/lib/runtime";
import { createTether } from "@/lib/tether";
import { ledgerEffectsOf, loadSubject, type EvalSubject } from "./subject";

// One trial's engine, built the same way in the harness process and in a worker process: the subject's
// agents (scripted, or thinking with TETHER_MODEL), its tools over HTTP to the trial's sandbox world
// (the built-in tools by default), and the Prisma store on the trial's database.

export type PolicyKind = "scripted" | "model";

export type EvalEngineOptions = {
  dbUrl: string;
  sandboxUrl: string | (() => string);
  policy: PolicyKind;
  /** For tests that prove the evals can fail: every call gets a fresh key, as if the engine had no stable idempotency keys. */
  breakIdempotency?: boolean;
  onFaultPoint?: (point: FaultPoint, info: { runId: string; step: number; tool: string }) => Promise<void> | void;
  toolTimeoutMs?: number;
  /** The module of the agents and tools under test (subject.ts); unset, the demo agents and built-in tools. */
  subject?: string | null;
};

/** "scripted", or "model:<provider>:<model>" when TETHER_MODEL configures one. */
export async function describePolicy(policy: PolicyKind): Promise<string> {
  if (policy === "scripted") return "scripted";
  const { describeModel, modelFromEnv } = await import("@/lib/agents/model-provider");
  const model = modelFromEnv();
  if (!model) throw new Error("--policy model needs TETHER_MODEL (e.g. openai:gpt-4o-mini) and the provider's API key");
  return `model:${describeModel(model)}`;
}

/** The agents as this policy runs them: their scripted policies, or the configured model for each. */
export async function evalAgents(
  subject: EvalSubject,
  policy: PolicyKind,
  tools: ToolDefinition[],
): Promise<AgentDefinition[]> {
  const agents = subject.agents.map((a) => a.definition);
  if (policy === "scripted") return agents;
  const { modelFromEnv, pricingFromEnv } = await import("@/lib/agents/model-provider");
  const model = modelFromEnv();
  if (!model) throw new Error("--policy model needs TETHER_MODEL");
  // Loaded only for a model policy: the AI SDK takes seconds to import, and every crash trial starts a process.
  const { withModelPolicies } = await import("@/lib/agents/model-policy");
  return withModelPolicies(agents, tools, { model, pricing: pricingFromEnv() });
}

/** Every call under a fresh key: what a runtime without stable operation ids would do on a retry. */
function withoutIdempotency(tools: ToolDefinition[]): ToolDefinition[] {
  const fresh = () => `op_broken_${randomUUID().replaceAll("-", "")}`;
  return tools.map((tool) => ({
    ...tool,
    run: (args, ctx) => {
      const key = fresh();
      return tool.run(args, { ...ctx, operationId: key, idempotencyKey: key });
    },
    ...(tool.lookup
      ? {
          lookup: (args: unknown, ctx: Parameters<NonNullable<ToolDefinition["lookup"]>>[1]) => {
            const key = fresh();
            return tool.lookup!(args, { ...ctx, operationId: key, idempotencyKey: key });
          },
        }
      : {}),
  }));
}

export async function createEvalEngine(opts: EvalEngineOptions) {
  const db = createDb(opts.dbUrl);
  // A generous client timeout: on a loaded machine a 5 s timeout abandons requests that still land
  // later, and the engine's read-before-write cannot see an effect that is still in flight.
  const subject = await loadSubject(opts.subject);
  const own = subject.tools({ sandboxUrl: opts.sandboxUrl, timeoutMs: opts.toolTimeoutMs ?? 15_000 });
  const tools = opts.breakIdempotency ? withoutIdempotency(own) : own;
  const { runtime } = createTether({
    db,
    agents: await evalAgents(subject, opts.policy, own),
    tools,
    registeredTools: false, // a trial's world has only the subject's tools
    retryBaseDelayMs: 20,
    onFaultPoint: opts.onFaultPoint,
  });
  return { db, runtime, subject, ledgerEffects: ledgerEffectsOf(own), close: () => db.$disconnect() };
}
export type EvalEngine = Awaited<ReturnType<typeof createEvalEngine>>;
