"use server";
// Server actions of the permission matrix. A change is read by the engine at the next action of every
// run — paused ones included: it re-reads the rules at the moment of acting and after an approval.
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { putPermission } from "@/lib/commands/put-permission";
import { removePermission } from "@/lib/commands/remove-permission";
import { getRuntime } from "@/lib/runtime.server";
import { permissionInputSchema } from "@/lib/runtime/permissions";

// expectedVersion: the version the editor showed (0 for a new rule); another admin's change in
// between makes this one a CONFLICT instead of silently overwriting theirs.
const putPermissionActionSchema = permissionInputSchema.extend({ expectedVersion: z.number().int().min(0) });
export type PutPermissionActionInput = z.input<typeof putPermissionActionSchema>;

export const putPermissionAction = defineAction(
  { schema: putPermissionActionSchema, scope: "admin:manage", audit: { action: "permissions.put", byHandler: true } },
  async ({ expectedVersion, ...rule }, { user, revalidatePath }) => {
    const saved = await putPermission({ runtime: getRuntime() }, { rule, expectedVersion, by: user.email });
    revalidatePath("/admin/permissions");
    return saved;
  },
);

export const removePermissionAction = defineAction(
  {
    schema: z.object({ permissionId: z.string().trim().min(1) }),
    scope: "admin:manage",
    audit: { action: "permissions.remove", byHandler: true },
  },
  async ({ permissionId }, { user, revalidatePath }) => {
    await removePermission({ runtime: getRuntime() }, { permissionId, by: user.email });
    revalidatePath("/admin/permissions");
    return { permissionId };
  },
);
