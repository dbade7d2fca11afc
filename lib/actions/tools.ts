"use server";
// Server actions of the admin "Tools" page; POST /api/tools and DELETE /api/tools/:id call the same
// commands, each of which audits in its transaction.
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { disableTool } from "@/lib/commands/disable-tool";
import { enableTool } from "@/lib/commands/enable-tool";
import { registerTool } from "@/lib/commands/register-tool";
import { registerToolSchema } from "@/lib/tools/registered";

const toolIdSchema = z.object({ toolId: z.string().trim().min(1) });

export const registerToolAction = defineAction(
  {
    schema: registerToolSchema,
    scope: "admin:manage",
    audit: { action: "tools.register", byHandler: true },
  },
  async (input, { user, db, revalidatePath }) => {
    const tool = await registerTool({ db }, input, { by: user.email });
    revalidatePath("/admin/tools");
    revalidatePath("/admin/permissions");
    return { id: tool.id, name: tool.name };
  },
);

export const disableToolAction = defineAction(
  { schema: toolIdSchema, scope: "admin:manage", audit: { action: "tools.disable", byHandler: true } },
  async ({ toolId }, { user, db, revalidatePath }) => {
    const tool = await disableTool({ db }, toolId, { by: user.email });
    revalidatePath("/admin/tools");
    return { id: tool.id, name: tool.name };
  },
);

export const enableToolAction = defineAction(
  { schema: toolIdSchema, scope: "admin:manage", audit: { action: "tools.enable", byHandler: true } },
  async ({ toolId }, { user, db, revalidatePath }) => {
    const tool = await enableTool({ db }, toolId, { by: user.email });
    revalidatePath("/admin/tools");
    return { id: tool.id, name: tool.name };
  },
);
