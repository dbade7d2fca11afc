"use server";
// Server actions of the admin "Tools" page; POST /api/tools and DELETE /api/tools/:id call the same
// commands, each of which audits in its transaction.
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { registerTool } from "@/lib/commands/register-tool";
import { setToolDisabled } from "@/lib/commands/set-tool-disabled";
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

/** Disabling or enabling a tool: the same action but for the state it sets (and the audit action named). */
const setToolDisabledAction = (isDisabled: boolean) =>
  defineAction(
    {
      schema: toolIdSchema,
      scope: "admin:manage",
      audit: { action: isDisabled ? "tools.disable" : "tools.enable", byHandler: true },
    },
    async ({ toolId }, { user, db, revalidatePath }) => {
      const tool = await setToolDisabled({ db }, toolId, isDisabled, { by: user.email });
      revalidatePath("/admin/tools");
      return { id: tool.id, name: tool.name };
    },
  );

export const disableToolAction = setToolDisabledAction(true);
export const enableToolAction = setToolDisabledAction(false);
