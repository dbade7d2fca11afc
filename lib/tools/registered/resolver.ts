import type { Db } from "@/lib/db";
import type { Logger, ToolDefinition } from "@/lib/runtime";
import { toolFromRegistration, type RegisteredToolOptions } from "./tool-from-registration";

/** RuntimeOptions.resolveTool: the registration read fresh at every use; disabled or unknown → undefined. */
export function createRegisteredToolResolver(db: Db, opts: RegisteredToolOptions & { logger?: Logger } = {}) {
  return async (name: string): Promise<ToolDefinition | undefined> => {
    if (!name.startsWith("http.") && !name.startsWith("mcp.")) return undefined; // not a registered name: no query
    const row = await db.toolRegistration.findFirst({
      where: { name },
    }); /* the run's workspace (lib/workspaces/scope.ts) */
    if (!row || row.disabledAt) return undefined;
    try {
      return toolFromRegistration(row, opts);
    } catch (error) {
      // Validated at registration, so only a hand-edited row gets here: unavailable, never half-built.
      opts.logger?.error("registered tool cannot be built", {
        name,
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  };
}
