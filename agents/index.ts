import type { DefinedAgent } from "@/lib/sdk";
import type { ToolDefinition } from "@/lib/runtime";

// The team's own agents and tools, which the app runs beside the demo agents (lib/agents/index.ts).
// `npx tether new agent <name>` adds its import and its entry here; add an agent written by hand the same
// way. The app's bundle cannot import a folder at run time, so this list is what the console and the
// worker run; tests and scripts can also load the folder with loadAgents() (lib/sdk).
// tether:imports

export const agents: DefinedAgent[] = [
  // tether:agents
];

/** Tools made with defineTool that the agents above use (passed to createTether beside the built-in ones). */
export const tools: ToolDefinition[] = [];
