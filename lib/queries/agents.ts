// Read model of the admin "Agents" page: every agent this deployment runs, each version ever recorded
// (lib/agents/versions.ts) or pinned by a run, how many runs each version has, and of its runs not ended
// how many are active (queued, running), waiting (a timer, an event, an approval) or parked for a person.
import { builtInAgents } from "@/lib/agents";
import { getDb, type Db } from "@/lib/db";
import { versionName, type AgentDefinition } from "@/lib/runtime";

/** A version's runs that have not ended, by what they are doing. */
export type VersionRunCounts = { active: number; waiting: number; parked: number };

const COUNTED: Record<string, keyof VersionRunCounts> = {
  QUEUED: "active",
  RUNNING: "active",
  SLEEPING: "waiting",
  WAITING_EVENT: "waiting",
  WAITING_APPROVAL: "waiting",
  NEEDS_ATTENTION: "parked",
};

export type AgentVersionView = {
  version: string;
  /** A person's name for it (defineAgent label); null when none was given or it was never recorded. */
  label: string | null;
  /** The version as a person reads it: "3f9a0c21b7de (2)". */
  name: string;
  /** This deployment runs it: its runs go on; one not loaded parks its runs for an upgrade. */
  loaded: boolean;
  runs: VersionRunCounts;
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
export async function findAgentsWithVersions(
  db: Db = getDb(),
  deployed: AgentDefinition[] = builtInAgents,
): Promise<AgentView[]> {
  const [rows, counts] = await Promise.all([
    db.agentVersion.findMany({ orderBy: [{ slug: "asc" }, { firstSeenAt: "desc" }, { version: "desc" }] }),
    db.run.groupBy({ by: ["agentSlug", "agentVersion", "status"], _count: { _all: true } }),
  ]);
  const key = (slug: string, version: string) => `${slug}\u0000${version}`;
  const runCount = new Map<string, number>();
  const runStates = new Map<string, VersionRunCounts>();
  for (const c of counts) {
    const k = key(c.agentSlug, c.agentVersion);
    runCount.set(k, (runCount.get(k) ?? 0) + c._count._all);
    const counted = COUNTED[c.status];
    if (!counted) continue;
    const states = runStates.get(k) ?? { active: 0, waiting: 0, parked: 0 };
    states[counted] += c._count._all;
    runStates.set(k, states);
  }
  const statesOf = (slug: string, version: string) =>
    runStates.get(key(slug, version)) ?? { active: 0, waiting: 0, parked: 0 };
  const loaded = new Set(deployed.map((a) => key(a.slug, a.version)));
  const bySlug = new Map<string, AgentView>();
  const agentOf = (slug: string): AgentView => {
    let agent = bySlug.get(slug);
    if (!agent) {
      const definition = deployed.findLast((a) => a.slug === slug); // the newest: listed last
      agent = {
        slug,
        name: definition?.name ?? slug,
        description: definition?.description ?? "No longer deployed.",
        currentVersion: definition?.version ?? null,
        totalRuns: 0,
        versions: [],
      };
      bySlug.set(slug, agent);
    }
    return agent;
  };
  for (const definition of deployed) agentOf(definition.slug);
  for (const row of rows) {
    const agent = agentOf(row.slug);
    agent.versions.push({
      version: row.version,
      label: row.label,
      name: versionName({ version: row.version, label: row.label ?? undefined }),
      loaded: loaded.has(key(row.slug, row.version)),
      runs: statesOf(row.slug, row.version),
      instructions: row.instructions,
      model: row.model,
      tools: parseList<string>(row.tools),
      plan: parseList(row.plan),
      firstSeenAt: row.firstSeenAt,
      runCount: runCount.get(key(row.slug, row.version)) ?? 0,
      isCurrent: row.version === agent.currentVersion,
    });
  }
  // Versions only a run remembers: shown with their run count, without details.
  for (const c of counts) {
    const agent = agentOf(c.agentSlug);
    if (agent.versions.some((v) => v.version === c.agentVersion)) continue;
    agent.versions.push({
      version: c.agentVersion,
      label: null,
      name: c.agentVersion,
      loaded: loaded.has(key(c.agentSlug, c.agentVersion)),
      runs: statesOf(c.agentSlug, c.agentVersion),
      instructions: null,
      model: null,
      tools: [],
      plan: [],
      firstSeenAt: null,
      runCount: runCount.get(key(c.agentSlug, c.agentVersion))!,
      isCurrent: c.agentVersion === agent.currentVersion,
    });
  }
  for (const agent of bySlug.values()) agent.totalRuns = agent.versions.reduce((sum, v) => sum + v.runCount, 0);
  const order = (a: AgentView) => (a.currentVersion ? 0 : 1);
  return [...bySlug.values()].sort((a, b) => order(a) - order(b) || a.slug.localeCompare(b.slug));
}
