// The agent SDK: everything a team needs to write an agent and its tools, from one module.
//
//   import { defineAgent, defineTool, z } from "@/lib/sdk";
//
//   export default defineAgent({
//     slug: "triage-agent", label: "1", source: import.meta.url, description: "…", instructions: "…",
//     input: z.object({ ticketId: z.string() }),
//     tools: ["tickets.get", "mail.send"],
//     gates: { "mail.send": { queue: "support" } },        // a person approves every email
//     policy: ({ input, state }) => …,                      // or model: true (thinks with TETHER_MODEL)
//   });
//
// The guide is docs/agents.md; agents/README.md says where a team's agents live.

export {
  defineAgent,
  isDefinedAgent,
  type AgentSpec,
  type DefinedAgent,
  type Gate,
  type GateCondition,
  type Grant,
  type ModelSettings,
  type PlanStep,
  type ScriptedPolicy,
} from "./define-agent";
export { defineTool, type ToolSpec } from "./define-tool";
export { childResult, childResults, spawn, type ChildOutcome } from "./children";
export { SdkDefinitionError } from "./errors";
export { sourceFiles, sourceHash } from "./source-hash";
export { agentFiles, loadAgents } from "./load-agents";
export { applyDefaultPermissions } from "./permissions";

// What a policy reads and returns, and the helpers every scripted policy uses.
export {
  latestFact,
  ToolError,
  type Decision,
  type Fact,
  type Observation,
  type Policy,
  type PolicyInput,
  type RunState,
  type ToolCallContext,
} from "@/lib/runtime";
export {
  callUnlessFailed,
  completeWith,
  definePlan,
  isTurnedDown,
  lastStepOf,
  latestRedirect,
  outcomeOf,
  parseDuration,
  planWith,
  readRun,
  stepOf,
  syncPlan,
  type DefinedPlan,
  type Plan,
  type PlanStatus,
  type RunReader,
  type ToolCall,
} from "@/lib/agents/shared";
// zod, re-exported so an agent's file needs nothing but this module.
export { z } from "zod";
