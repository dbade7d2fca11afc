import type { AgentDefinition } from "@/lib/runtime";

/** The agents this deployment runs. The demo agents (refund, deploy, outreach) register here. */
export const builtInAgents: AgentDefinition[] = [];
