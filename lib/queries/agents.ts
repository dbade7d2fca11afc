// Read model of the admin "Agents" page: every agent this deployment runs, each version ever recorded
// (lib/agents/versions.ts) or pinned by a run, and how many runs each version has.
import { builtInAgents } from "@/lib/agents";
import { getDb, type Db } from "@/lib/db";
import type { AgentDefinition } from "@/lib/runtime";

export type AgentVersionView = {
  version: string;
  /** null when runs pin a version that was never recorded (it ran before versions were kept). */
  instructions: string | null;
  model: string | null;
  tools: string[];
  plan: Array<{ id: string; title: string }>;
  firstSeenAt: Date | null;
  runCount: number;
  isCurrent: boolean;
};

export type AgentView = {
  slug: string;
  name: string;
  description: string;
  /** The version this deployment starts new runs with; null for an agent no longer deployed. */
  currentVersion: string | null;
  totalRuns: number;
  versions: AgentVersionView[];
};

const parseList = <T>(text: string): T[] => {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
};

/** Agents (deployed first, then ones only runs remember), each with its versions, newest first. */
export async function findAgentsWithVersions(db: Db = getDb(), deployed: AgentDefinition[] = builtInAgents): Promise<AgentView[]> {
  const [rows, counts] = await Promise.all([
    db.agentVersion.findMany({ orderBy: [{ slug: "asc" }, { firstSeenAt: "desc" }, { version: "desc" }] }),
    db.run.groupBy({ by: ["agentSlug", "agentVersion"], _count: { _all: true } }),
  ]);
  const runCount = new Map(counts.map((c) => [`${c.agentSlug}\u0000${c.agentVersion}`, c._count._all]));
  const bySlug = new Map<string, AgentView>();
  const agentOf = (slug: string): AgentView => {
    let agent = bySlug.get(slug);
    if (!agent) {
      const definition = deployed.find((a) => a.slug === slug);
      agent = { slug, name: definition?.name ?? slug, description: definition?.description ?? "No longer deployed.", currentVersion: definition?.version ?? null, totalRuns: 0, versions: [] };
      bySlug.set(slug, agent);
    }
    return agent;
  };
  for (const definition of deployed) agentOf(definition.slug);
  for (const row of rows) {
    const agent = agentOf(row.slug);
    agent.versions.push({
      version: row.version, instructions: row.instructions, model: row.model, tools: parseList<string>(row.tools), plan: parseList(row.plan),
      firstSeenAt: row.firstSeenAt, runCount: runCount.get(`${row.slug}\u0000${row.version}`) ?? 0, isCurrent: row.version === agent.currentVersion,
    });
  }
  // Versions only a run remembers: shown with their run count, without details.
  for (const c of counts) {
    const agent = agentOf(c.agentSlug);
    if (agent.versions.some((v) => v.version === c.agentVersion)) continue;
    agent.versions.push({ version: c.agentVersion, instructions: null, model: null, tools: [], plan: [], firstSeenAt: null, runCount: c._count._all, isCurrent: c.agentVersion === agent.currentVersion });
  }
  for (const agent of bySlug.values()) agent.totalRuns = agent.versions.reduce((sum, v) => sum + v.runCount, 0);
  const order = (a: AgentView) => (a.currentVersion ? 0 : 1);
  return [...bySlug.values()].sort((a, b) => order(a) - order(b) || a.slug.localeCompare(b.slug));
}
