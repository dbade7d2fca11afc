import type { PermissionRule, Runtime } from "@/lib/runtime";

// A person creating or changing a permission rule (the console's permission matrix): the engine validates
// it, the store versions it and writes its history row and its "permissions.put" audit row (the rule as
// asked, with the version it got) in one transaction. `expectedVersion` is the version the editor showed
// (0 for a new rule): another admin's change in between makes this one a CONFLICT.

export type PutPermissionCommand = { rule: unknown; expectedVersion?: number; by: string; via?: string };

export async function putPermission(
  deps: { runtime: Pick<Runtime, "permissions"> },
  command: PutPermissionCommand,
): Promise<PermissionRule> {
  return deps.runtime.permissions.put(command.rule, {
    by: command.by,
    expectedVersion: command.expectedVersion,
    audit: { via: command.via },
  });
}
