import { auditChange, type ChangeActor } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import { newRecordId } from "@/lib/runtime/record-id";
import { AppError, parseInput } from "@/lib/runtime/errors";
import { presentRegisteredTool, registerToolSchema, type RegisteredToolView } from "@/lib/tools/registered";

// Registering an HTTP or MCP tool (POST /api/tools, the console's Tools page): the registration and its
// "tools.register" audit row in one transaction. A name in use → CONFLICT; a disabled tool's name can be
// registered again. Header values may carry secrets: the audit keeps what the tool is, not its settings.

export type ToolChangeActor = ChangeActor;

export async function registerTool(
  deps: { db: Db },
  input: unknown,
  who: ToolChangeActor,
): Promise<RegisteredToolView> {
  const { kind, name, description, capability, semantics, inputSchema, config, impactTemplate } = parseInput(
    registerToolSchema,
    input,
    "tool registration",
  );
  try {
    const row = await deps.db.$transaction(async (tx) => {
      // A disabled registration gives its name back; an active one keeps it (the create below fails).
      await tx.toolRegistration.deleteMany({ where: { name, disabledAt: { not: null } } });
      const created = await tx.toolRegistration.create({
        data: {
          id: newRecordId("tool"),
          name,
          kind,
          description,
          capability,
          semantics,
          inputSchema: JSON.stringify(inputSchema),
          config: JSON.stringify(config),
          impactTemplate: impactTemplate ?? null,
          createdBy: who.by,
        },
      });
      await auditChange(tx, who, "tools.register", { target: name, data: { kind, name, capability, semantics } });
      return created;
    });
    return presentRegisteredTool(row);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "P2002") {
      throw new AppError("CONFLICT", {
        message: `tool ${name} exists`,
        userMessage: `A tool named ${name} is already registered.`,
        fieldErrors: { name: [`A tool named ${name} is already registered.`] },
      });
    }
    throw error;
  }
}
