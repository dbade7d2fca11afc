import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { presentRegisteredTool, type RegisteredToolView } from "@/lib/tools/registered";
import type { ToolChangeActor } from "./register-tool";

// Disabling a registered tool (DELETE /api/tools/:id, the console's Tools page) or enabling it again (the Tools
// page): from its next use on, the engine no longer finds it, or finds it again. Compare-and-set, with its
// "tools.disable" or "tools.enable" audit row in the same transaction.

export async function setToolDisabled(
  deps: { db: Db },
  toolId: string,
  isDisabled: boolean,
  who: ToolChangeActor,
): Promise<RegisteredToolView> {
  const already = isDisabled ? "disabled" : "enabled";
  return deps.db.$transaction(async (tx) => {
    const { count } = await tx.toolRegistration.updateMany({
      where: { id: toolId, disabledAt: isDisabled ? null : { not: null } },
      data: isDisabled ? { disabledAt: new Date(), disabledBy: who.by } : { disabledAt: null, disabledBy: null },
    });
    if (count === 0)
      throw new AppError("NOT_FOUND", {
        message: `tool ${toolId} not found or ${already}`,
        userMessage: `That tool does not exist or is already ${already}.`,
      });
    const tool = presentRegisteredTool(await tx.toolRegistration.findUniqueOrThrow({ where: { id: toolId } }));
    await auditChange(tx, who, isDisabled ? "tools.disable" : "tools.enable", {
      target: tool.name,
      data: { id: toolId },
    });
    return tool;
  });
}

export const disableTool = (deps: { db: Db }, toolId: string, who: ToolChangeActor) =>
  setToolDisabled(deps, toolId, true, who);

export const enableTool = (deps: { db: Db }, toolId: string, who: ToolChangeActor) =>
  setToolDisabled(deps, toolId, false, who);
