import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import type { Runtime, VersionUpgrade } from "@/lib/runtime";

// Upgrading every run of one version of an agent to the newest (POST /api/agents/:slug/versions/:version/upgrade
// and the console's Agents page): the engine moves each run with its own audit row naming the action; this
// writes the action's own row, with what it moved and what it skipped, so the audit log reads as one act.

export type UpgradeAgentVersionCommand = { slug: string; version: string; by: string; via?: string };

export async function upgradeAgentVersion(
  deps: { db: Db; runtime: Runtime },
  command: UpgradeAgentVersionCommand,
): Promise<VersionUpgrade> {
  const result = await deps.runtime.upgradeVersion(command);
  await auditChange(deps.db, command, "agents.upgrade_version", {
    target: `${command.slug}@${command.version}`,
    data: { to: result.to, upgraded: result.upgraded, skipped: result.skipped },
  });
  return result;
}
