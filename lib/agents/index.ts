import type { AgentDefinition } from "@/lib/runtime";
import { deployAgent } from "./deploy-agent";
import { outreachAgent } from "./outreach-agent";
import { refundAgent } from "./refund-agent";
import type { DemoAgent } from "./shared";

// The agents this deployment runs: the three demo agents, each with a scripted (deterministic) policy,
// an example input that works against the seeded sandbox world, and the permissions it needs.

export const demoAgents: DemoAgent[] = [refundAgent, deployAgent, outreachAgent];

export const builtInAgents: AgentDefinition[] = demoAgents.map((a) => a.definition);

/** slug → an input that works against `seedSandbox`'s world (served by GET /api/agents). */
export const exampleInputs: Record<string, unknown> = Object.fromEntries(demoAgents.map((a) => [a.definition.slug, a.exampleInput]));

export { refundAgent, deployAgent, outreachAgent };
export { assessRefund, refundAgentInputSchema, REFUND_APPROVAL_LIMIT_CENTS, type RefundAgentInput, type RefundAssessment } from "./refund-agent";
export { assessMigration, deployAgentInputSchema, type DeployAgentInput, type MigrationRisk, type MigrationRollback } from "./deploy-agent";
export { composeEmail, outreachAgentInputSchema, type OutreachAgentInput, type OutreachEmail } from "./outreach-agent";
export type { DemoAgent } from "./shared";
