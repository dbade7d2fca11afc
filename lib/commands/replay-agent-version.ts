import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import { replaySummary, type VersionReplaySummary } from "@/lib/replay";
import type { Runtime } from "@/lib/runtime";

// Replaying a version's recent finished runs on the current code (the console's Agents page). It changes
// nothing, but running recorded inputs again is an act on record: the "agents.replay" row holds its counts.

export type ReplayAgentVersionCommand = { slug: string; version: string; limit?: number; by: string; via?: string };

export async function replayAgentVersion(
  deps: { db: Db; runtime: Pick<Runtime, "store"> },
  command: ReplayAgentVersionCommand,
): Promise<VersionReplaySummary> {
  const summary = await replaySummary({
    source: deps.runtime.store,
    slug: command.slug,
    version: command.version,
    limit: command.limit,
  });
  await auditChange(deps.db, command, "agents.replay", {
    target: `${command.slug}@${command.version}`,
    data: {
      currentVersion: summary.currentVersion,
      replayed: summary.replayed,
      same: summary.same,
      differ: summary.differ,
      needsModel: summary.needsModel,
    },
  });
  return summary;
}
