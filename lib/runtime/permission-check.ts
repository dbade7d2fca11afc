import type { EngineContext } from "./context";
import type { RunCursor } from "./cursor";
import { evaluatePermission, type PermissionRequest, type PermissionVerdict } from "./permissions";

// Checked at the moment of acting (DESIGN.md §5), cheaply: an agent's rules are cached per permission
// epoch, so while nothing changes an action costs one small read (the epoch). The epoch the verdict
// rests on goes with the cursor: the step's intent (or its approval request) commits only while it
// still holds, so a change made between this check and that commit sends the step back to check again.

export async function checkPermission(ctx: EngineContext, cursor: RunCursor, request: PermissionRequest): Promise<PermissionVerdict> {
  const epoch = await ctx.store.permissionEpoch();
  let cached = ctx.permissionCache.get(request.agent);
  if (!cached || cached.epoch !== epoch) {
    cached = await ctx.store.listPermissionsAtEpoch(request.agent);
    ctx.permissionCache.set(request.agent, cached);
  }
  cursor.permissionEpoch = cached.epoch;
  return evaluatePermission(cached.rules, request);
}
