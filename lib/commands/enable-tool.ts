import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { presentRegisteredTool, type RegisteredToolView } from "@/lib/tools/registered";
import type { ToolChangeActor } from "./register-tool";

// Enabling a disabled registered tool (the console's Tools page): from its next use on, the engine finds it
// again. Compare-and-set, with its "tools.enable" audit row in the same transaction.

export async function enableTool(deps: { db: Db }, toolId: string, who: ToolChangeActor): Promise<RegisteredToolView> {
  return deps.db.$transaction(async (tx) => {
    const { count } = await tx.toolRegistration.updateMany({
      where: { id: toolId, disabledAt: { not: null } },
      data: { disabledAt: null, disabledBy: null },
    });
    if (count === 0)
      throw new AppError("NOT_FOUND", {
        message: `tool ${toolId} not found or enabled`,
        userMessage: "That tool does not exist or is already enabled.",
      });
    const tool = presentRegisteredTool(await tx.toolRegistration.findUniqueOrThrow({ where: { id: toolId } }));
    await writeAudit(tx, {
      actor: who.by,
      action: "tools.enable",
      target: tool.name,
      data: { id: toolId },
      via: who.via,
    });
    return tool;
  });
}
