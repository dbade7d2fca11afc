import { randomUUID } from "node:crypto";
import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import { AppError, fieldErrorsFromIssues } from "@/lib/runtime/errors";
import { presentRegisteredTool, type RegisteredToolView } from "./present";
import { registerToolSchema } from "./schemas";

/** Registers an HTTP or MCP tool, audited in the same transaction. A name in use → CONFLICT; a disabled tool's name can be registered again. */
export async function registerTool(db: Db, input: unknown, by: string): Promise<RegisteredToolView> {
  const parsed = registerToolSchema.safeParse(input);
  if (!parsed.success) {
    throw new AppError("INVALID_INPUT", { message: "invalid tool registration", userMessage: "The tool registration is invalid.", fieldErrors: fieldErrorsFromIssues(parsed.error.issues) });
  }
  const { kind, name, description, capability, semantics, inputSchema, config, impactTemplate } = parsed.data;
  try {
    const row = await db.$transaction(async (tx) => {
      // A disabled registration gives its name back; an active one keeps it (the create below fails).
      await tx.toolRegistration.deleteMany({ where: { name, disabledAt: { not: null } } });
      const created = await tx.toolRegistration.create({
        data: {
          id: `tool_${randomUUID().replaceAll("-", "")}`,
          name, kind, description, capability, semantics,
          inputSchema: JSON.stringify(inputSchema),
          config: JSON.stringify(config),
          impactTemplate: impactTemplate ?? null,
          createdBy: by,
        },
      });
      // Header values may carry secrets: the audit keeps what the tool is, not its settings.
      await writeAudit(tx, { actor: by, action: "tools.register", target: name, data: { kind, name, capability, semantics } });
      return created;
    });
    return presentRegisteredTool(row);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "P2002") {
      throw new AppError("CONFLICT", { message: `tool ${name} exists`, userMessage: `A tool named ${name} is already registered.`, fieldErrors: { name: [`A tool named ${name} is already registered.`] } });
    }
    throw error;
  }
}
