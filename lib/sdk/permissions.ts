import type { PermissionRule, Runtime } from "@/lib/runtime";
import type { DefinedAgent } from "./define-agent";

/**
 * Puts an agent's default rules (its tools and gates) where the agent has no rule yet for that tool and
 * step. A rule an admin wrote or edited is never overwritten: the console's permissions page wins.
 * A rule an admin *removed* comes back the next time this runs — to take a tool away, set it to deny.
 * Returns the rules it created.
 */
export async function applyDefaultPermissions(
  runtime: Pick<Runtime, "permissions">,
  agent: DefinedAgent,
  opts: { by: string },
): Promise<PermissionRule[]> {
  const existing = await runtime.permissions.list(agent.definition.slug);
  const created: PermissionRule[] = [];
  for (const rule of agent.defaultPermissions) {
    const step = rule.step ?? "*";
    if (existing.some((r) => r.agent === rule.agent && r.tool === rule.tool && r.step === step)) continue;
    // expectedVersion 0: created only if still absent (another process starting at once is a CONFLICT, skipped).
    try {
      created.push(await runtime.permissions.put(rule, { by: opts.by, expectedVersion: 0 }));
    } catch (error) {
      if ((error as { code?: string } | null)?.code !== "CONFLICT") throw error;
    }
  }
  return created;
}
