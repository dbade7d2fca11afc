import type { Runtime } from "@/lib/runtime";

// A person removing a permission rule: the store deletes it and writes its history row and its
// "permissions.remove" audit row in one transaction. NOT_FOUND when there is no such rule.

export type RemovePermissionCommand = { permissionId: string; by: string; via?: string };

export async function removePermission(
  deps: { runtime: Pick<Runtime, "permissions"> },
  command: RemovePermissionCommand,
): Promise<void> {
  await deps.runtime.permissions.remove(command.permissionId, command.by, { audit: { via: command.via } });
}
