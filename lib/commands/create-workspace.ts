// A new workspace starts where the default one started: its creator its first admin, and every agent the deployment
// runs with the rules its definition declares (its tools and gates), which the workspace's admins then own.
import { appAgents } from "@/lib/agents";
import type { Db } from "@/lib/db";
import type { Runtime } from "@/lib/runtime";
import { inWorkspace } from "@/lib/runtime/workspace";
import { applyDefaultPermissions } from "@/lib/sdk";
import { createWorkspace, type WorkspaceRef } from "@/lib/workspaces/members";

export async function createWorkspaceWithDefaults(
  deps: { db: Db; runtime: Pick<Runtime, "permissions"> },
  input: unknown,
  opts: { by: string },
): Promise<WorkspaceRef> {
  const workspace = await createWorkspace(deps.db, input, opts);
  await inWorkspace(workspace.id, async () => {
    for (const agent of appAgents)
      await applyDefaultPermissions(deps.runtime, agent, { by: `workspaces.create:${opts.by}` });
  });
  return workspace;
}
