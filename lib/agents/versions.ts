import type { Db } from "@/lib/db";
import type { AgentDefinition } from "@/lib/runtime";

// Every (slug, version) an agent ran with is kept, so a run pinned to an old version (Run.agentVersion)
// can still show the instructions, tools and plan that shaped its decisions after the code moved on.
// Recorded when the composition root starts; a version already recorded is never rewritten. The version
// is derived from the definition and its code (lib/runtime/agent-version.ts), so a changed agent is a
// new row by itself; the label is a person's name for it.

export type AgentVersionRecord = {
  slug: string;
  version: string;
  label: string | null;
  instructions: string;
  model: string | null;
  tools: string[];
  plan: Array<{ id: string; title: string }>;
};

export function toAgentVersionRecord(agent: AgentDefinition, model: string | null): AgentVersionRecord {
  return {
    slug: agent.slug,
    version: agent.version,
    label: agent.label ?? null,
    instructions: agent.instructions,
    model,
    tools: [...agent.tools],
    plan: (agent.plan ?? []).map(({ id, title }) => ({ id, title })),
  };
}

/** Idempotent: inserts the versions not yet recorded, leaves recorded ones alone. Returns how many were new. */
export async function recordAgentVersions(
  db: Db,
  agents: AgentDefinition[],
  opts: { model?: string | null } = {},
): Promise<number> {
  let created = 0;
  for (const agent of agents) {
    const record = toAgentVersionRecord(agent, opts.model ?? null);
    const data = { ...record, tools: JSON.stringify(record.tools), plan: JSON.stringify(record.plan) };
    try {
      const existing = await db.agentVersion.findUnique({
        where: { slug_version: { slug: record.slug, version: record.version } },
        select: { slug: true },
      });
      if (existing) continue;
      await db.agentVersion.create({ data, select: { slug: true } });
      created++;
    } catch (error) {
      // Two processes starting together: the other one recorded it first, which is the same outcome.
      if ((error as { code?: string } | null)?.code !== "P2002") throw error;
    }
  }
  return created;
}
