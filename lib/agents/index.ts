import type { AgentDefinition } from "@/lib/runtime";
import { agents as teamAgents } from "@/agents";
import { deployAgent } from "./deploy-agent";
import { externalGateAgent } from "./external-gate";
import { outreachAgent } from "./outreach-agent";
import { refundAgent } from "./refund-agent";
import type { DemoAgent } from "./shared";

// The agents this deployment runs: the three demo agents — each made with the SDK (lib/sdk), with a
// scripted (deterministic) policy, an example input that works against the seeded sandbox world and the
// permissions it needs — and the team's own, listed in agents/index.ts.

export const demoAgents: DemoAgent[] = [refundAgent, deployAgent, outreachAgent];

/** Every agent the app runs: the demo agents, then the team's (agents/index.ts). */
export const appAgents: DemoAgent[] = [...demoAgents, ...teamAgents];

/** The definitions of every agent the app runs (the default of createTether), and the open gate's (internal: not started by hand). */
export const builtInAgents: AgentDefinition[] = [...appAgents.map((a) => a.definition), externalGateAgent];

/** slug → an input that works (served by GET /api/agents); demo agents' work against `seedSandbox`'s world. */
export const exampleInputs: Record<string, unknown> = Object.fromEntries(
  appAgents.map((a) => [a.definition.slug, a.exampleInput]),
);

export { refundAgent, deployAgent, outreachAgent };
export {
  assessRefund,
  refundAgentInputSchema,
  REFUND_APPROVAL_LIMIT_CENTS,
  type RefundAgentInput,
  type RefundAssessment,
} from "./refund-agent";
export {
  assessMigration,
  deployAgentInputSchema,
  type DeployAgentInput,
  type MigrationRisk,
  type MigrationRollback,
} from "./deploy-agent";
export { composeEmail, outreachAgentInputSchema, type OutreachAgentInput, type OutreachEmail } from "./outreach-agent";
export type { DemoAgent } from "./shared";
export { externalGateAgent, EXTERNAL_GATE_AGENT } from "./external-gate";
