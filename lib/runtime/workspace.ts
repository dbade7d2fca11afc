// Which workspace the code running now acts in. A request enters its workspace (the token's, or the one in the
// console's URL) and everything it reads or writes through Prisma is scoped to it in one place
// (lib/workspaces/scope.ts). The worker acts as the system while it claims runs across workspaces, and in a run's
// own workspace while it drives that run, so what a step reads (its rules, its tools, its queues) is its
// workspace's own.
import { AsyncLocalStorage } from "node:async_hooks";

/** The workspace every deployment starts with; data from before workspaces belongs to it. */
export const DEFAULT_WORKSPACE_ID = "default";

// A string: that workspace. null: the system, on purpose (unscoped). No frame at all: ask the fallback.
// One per process, whichever bundle loads this file first (Next.js may load it in more than one).
const shared = globalThis as unknown as { tetherWorkspaceFrame?: AsyncLocalStorage<string | null> };
const frame = (shared.tetherWorkspaceFrame ??= new AsyncLocalStorage<string | null>());

export function inWorkspace<T>(workspaceId: string, fn: () => T): T {
  return frame.run(workspaceId, () => startedHere(fn()));
}

/** Code that works across workspaces by design (the worker's claim loop, retention, set-up). */
export function asSystem<T>(fn: () => T): T {
  return frame.run(null, () => startedHere(fn()));
}

/**
 * A Prisma call returns a lazy promise: its query, and the scope's look at the frame, run at its first `then`. Handed
 * out of the frame as it is (`inWorkspace(id, () => db.run.count())`), it would run in whatever frame awaits it.
 * Subscribing here starts it inside.
 */
function startedHere<T>(result: T): T {
  const thenable = result as { then?: unknown };
  return (typeof thenable?.then === "function" ? (result as PromiseLike<unknown>).then((value) => value) : result) as T;
}

/**
 * The workspace an engine call about something that exists (a packet) acts in: the one the caller names (null: the
 * system, across workspaces), else the one entered. Read here, at the engine's edge, and handed to the store.
 */
export function actingWorkspace(named?: string | null): string | null {
  return named !== undefined ? named : (enteredWorkspace() ?? null);
}

/** The workspace entered, null when the system was entered on purpose, undefined when nothing was entered. */
export function enteredWorkspace(): string | null | undefined {
  return frame.getStore();
}
