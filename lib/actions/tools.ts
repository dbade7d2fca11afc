"use server";
// Server actions of the admin "Tools" page; POST /api/tools and DELETE /api/tools/:id call the same
// domain functions (lib/tools/registered).
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { disableTool, enableTool, registerTool, registerToolSchema } from "@/lib/tools/registered";

const toolIdSchema = z.object({ toolId: z.string().trim().min(1) });

export const registerToolAction = defineAction(
  {
    schema: registerToolSchema,
    scope: "admin:manage",
    audit: { action: "tools.register", byHandler: true }, // registerTool audits in its transaction
  },
  async (input, { user, db, revalidatePath }) => {
    const tool = await registerTool(db, input, user.email);
    revalidatePath("/admin/tools");
    revalidatePath("/admin/permissions");
    return { id: tool.id, name: tool.name };
  },
);

export const disableToolAction = defineAction(
  { schema: toolIdSchema, scope: "admin:manage", audit: { action: "tools.disable", byHandler: true } },
  async ({ toolId }, { user, db, revalidatePath }) => {
    const tool = await disableTool(db, toolId, user.email);
    revalidatePath("/admin/tools");
    return { id: tool.id, name: tool.name };
  },
);

export const enableToolAction = defineAction(
  { schema: toolIdSchema, scope: "admin:manage", audit: { action: "tools.enable", byHandler: true } },
  async ({ toolId }, { user, db, revalidatePath }) => {
    const tool = await enableTool(db, toolId, user.email);
    revalidatePath("/admin/tools");
    return { id: tool.id, name: tool.name };
  },
);
