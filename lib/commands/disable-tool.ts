import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { presentRegisteredTool, type RegisteredToolView } from "@/lib/tools/registered";
import type { ToolChangeActor } from "./register-tool";

// Disabling a registered tool (DELETE /api/tools/:id, the console's Tools page): from its next use on, the
// engine no longer finds it. Compare-and-set, with its "tools.disable" audit row in the same transaction.

export async function disableTool(deps: { db: Db }, toolId: string, who: ToolChangeActor): Promise<RegisteredToolView> {
  return deps.db.$transaction(async (tx) => {
    const { count } = await tx.toolRegistration.updateMany({
      where: { id: toolId, disabledAt: null },
      data: { disabledAt: new Date(), disabledBy: who.by },
    });
    if (count === 0)
      throw new AppError("NOT_FOUND", {
        message: `tool ${toolId} not found or disabled`,
        userMessage: "That tool does not exist or is already disabled.",
      });
    const tool = presentRegisteredTool(await tx.toolRegistration.findUniqueOrThrow({ where: { id: toolId } }));
    await writeAudit(tx, {
      actor: who.by,
      action: "tools.disable",
      target: tool.name,
      data: { id: toolId },
      via: who.via,
    });
    return tool;
  });
}
