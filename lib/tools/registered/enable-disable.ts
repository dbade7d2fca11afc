import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { presentRegisteredTool, type RegisteredToolView } from "./present";

/** Disables a registered tool: from the next use on, the engine no longer finds it. Compare-and-set; audited with it. */
export async function disableTool(db: Db, id: string, by: string): Promise<RegisteredToolView> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.toolRegistration.updateMany({ where: { id, disabledAt: null }, data: { disabledAt: new Date(), disabledBy: by } });
    if (count === 0) throw new AppError("NOT_FOUND", { message: `tool ${id} not found or disabled`, userMessage: "That tool does not exist or is already disabled." });
    const tool = presentRegisteredTool(await tx.toolRegistration.findUniqueOrThrow({ where: { id } }));
    await writeAudit(tx, { actor: by, action: "tools.disable", target: tool.name, data: { id } });
    return tool;
  });
}

/** Enables a disabled registered tool: from its next use on, the engine finds it again. Compare-and-set; audited with it. */
export async function enableTool(db: Db, id: string, by: string): Promise<RegisteredToolView> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.toolRegistration.updateMany({ where: { id, disabledAt: { not: null } }, data: { disabledAt: null, disabledBy: null } });
    if (count === 0) throw new AppError("NOT_FOUND", { message: `tool ${id} not found or enabled`, userMessage: "That tool does not exist or is already enabled." });
    const tool = presentRegisteredTool(await tx.toolRegistration.findUniqueOrThrow({ where: { id } }));
    await writeAudit(tx, { actor: by, action: "tools.enable", target: tool.name, data: { id } });
    return tool;
  });
}
