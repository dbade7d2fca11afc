import type { AgentDefinition, ToolDefinition } from "@/lib/runtime";
import { createModelPolicy } from "./create-model-policy";
import type { ModelPolicyOptions } from "./options";

/** The agents thinking with one model instead of their scripts, each offered the tools it names. */
export function withModelPolicies(
  agents: AgentDefinition[],
  tools: ToolDefinition[],
  options: Omit<ModelPolicyOptions, "tools">,
): AgentDefinition[] {
  // An internal agent (the open gate's) is machinery with a fixed script: no model decides it.
  return agents.map((agent) =>
    agent.internal
      ? agent
      : {
          ...agent,
          policy: createModelPolicy({ ...options, tools: tools.filter((t) => agent.tools.includes(t.name)) }),
        },
  );
}
