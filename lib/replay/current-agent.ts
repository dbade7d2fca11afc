import { tools as teamTools } from "@/agents";
import { appAgents } from "@/lib/agents";
import type { ToolDefinition } from "@/lib/runtime";
import type { DefinedAgent } from "@/lib/sdk";
import { createBuiltInTools } from "@/lib/tools";

// The one place a replay learns what the current code is: the agent of that slug as this deployment runs
// it (thinking with TETHER_MODEL when set, as lib/runtime.server.ts does), and the tools' declarations.
// When agents are registered by slug and version, this is the function to change.

export type CurrentAgent = { agent: DefinedAgent; tools: ToolDefinition[]; withModel: boolean };

export async function currentAgent(slug: string): Promise<CurrentAgent | null> {
  const defined = appAgents.findLast((a) => a.definition.slug === slug); // the newest of its versions: listed last
  if (!defined) return null;
  // Declarations only: the replay answers every call from the recording, so this address is never reached.
  const tools = [...createBuiltInTools({ sandboxUrl: "http://127.0.0.1:9/replay-never-calls" }), ...teamTools];
  const { modelFromEnv, pricingFromEnv } = await import("@/lib/agents/model-provider");
  const model = modelFromEnv();
  if (!model) return { agent: defined, tools, withModel: false };
  const { withModelPolicies } = await import("@/lib/agents/model-policy");
  const [definition] = withModelPolicies([defined.definition], tools, { model, pricing: pricingFromEnv() });
  return { agent: { ...defined, definition }, tools, withModel: true };
}

/** Every slug a replay can take (the usage message lists them). */
export const replayableSlugs = (): string[] => appAgents.map((a) => a.definition.slug);
