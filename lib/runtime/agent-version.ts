import { z } from "zod";
import { canonicalJson, sha256 } from "./canonical";
import type { AgentDefinition } from "./types";

// An agent's version is derived, never typed: a content hash of a canonical description of what shapes
// its decisions. Any edit to that description (instructions, tools, input schema, plan, budget, the
// permissions it ships with, its model settings, the code of a scripted policy) is a new version, so an
// edit without a bump can no longer slip into running runs. A human label ("2", "spring-prices") may be
// shown beside it; the label identifies nothing.

/** What goes into the hash beside the definition: what the definition alone does not hold. */
export type AgentVersionExtras = {
  /** The permission rules the agent ships with (its gates and grants), as the runtime takes them. */
  permissions?: unknown;
  /** The policy's settings that are data (a model's name, temperature…). */
  policy?: unknown;
  /** A hash of the code behind the policy: its module's source and its local imports (lib/sdk source-hash). */
  source?: string | null;
};

/** 12 hex digits: short enough to read beside a label, long enough that two versions of one agent never meet. */
export const AGENT_VERSION_LENGTH = 12;

/** The canonical description the version hashes: plain JSON, keys sorted, functions left out. */
export function describeAgentForVersion(
  agent: Pick<
    AgentDefinition,
    | "slug"
    | "name"
    | "description"
    | "instructions"
    | "input"
    | "tools"
    | "plan"
    | "maxSteps"
    | "budget"
    | "internal"
    | "spawns"
  >,
  extras: AgentVersionExtras = {},
): unknown {
  return {
    slug: agent.slug,
    name: agent.name,
    description: agent.description,
    instructions: agent.instructions,
    input: inputSchemaOf(agent.input),
    tools: agent.tools,
    plan: (agent.plan ?? []).map(({ id, title }) => ({ id, title })),
    maxSteps: agent.maxSteps ?? null,
    budget: agent.budget ?? null,
    internal: agent.internal ?? false,
    // Only when set: a version derived before child runs existed stays the same.
    ...(agent.spawns?.length ? { spawns: [...agent.spawns].sort() } : {}),
    permissions: extras.permissions ?? null,
    policy: extras.policy ?? null,
    source: extras.source ?? null,
  };
}

/** The version of an agent: the first 12 hex digits of the sha256 of its canonical description. */
export function deriveAgentVersion(
  agent: Parameters<typeof describeAgentForVersion>[0],
  extras: AgentVersionExtras = {},
): string {
  return sha256(canonicalJson(describeAgentForVersion(agent, extras))).slice(0, AGENT_VERSION_LENGTH);
}

/** "3f9a0c21b7de (2)": the version with its label, the way a person reads it. */
export function versionName(agent: { version: string; label?: string }): string {
  return agent.label ? `${agent.version} (${agent.label})` : agent.version;
}

function inputSchemaOf(schema: z.ZodType): unknown {
  try {
    // What a zod type cannot say in JSON Schema (a refinement's function) is left out: its code is in the source hash.
    return z.toJSONSchema(schema, { unrepresentable: "any" });
  } catch {
    return "unrepresentable";
  }
}
