// The one place where reads and writes are scoped to a workspace. Every Prisma call on a model a workspace owns,
// made while a workspace is entered (lib/runtime/workspace.ts), gets that workspace's condition added to its
// `where` and its id written into what it creates: a route, an action or a read model never passes a raw
// `where` for it, and another workspace's row is simply not there (a lookup by id finds nothing: 404).
// Models a workspace owns through their parent (a run's checkpoints, a packet's approvals, …) are scoped by the
// parent's column through their relation. Raw SQL is not seen here: the few statements a request can reach take the
// workspace as a parameter and add the condition themselves (tests/workspaces.int.test.ts); the store never reads
// the frame (lint refuses it), the engine's edge or the read model hands it the workspace.
import { enteredWorkspace } from "@/lib/runtime/workspace";
import { AppError } from "@/lib/runtime/errors";

/** Models with a workspaceId column of their own. */
export const WORKSPACE_MODELS = [
  "Run",
  "DecisionPacket",
  "Permission",
  "DecisionQueue",
  "PermissionChange",
  "ApiToken",
  "ToolRegistration",
  "AuditLog",
  "EvalDataset",
  "EvalRun",
  "NotificationChannel",
  "DecisionLink",
  "Schedule",
] as const;

/** Models a workspace owns through a parent: the relation field that leads to a model with the column. */
export const OWNED_THROUGH: Record<string, string> = {
  Checkpoint: "run",
  StateEntry: "run",
  TraceEvent: "run",
  EffectIntent: "run",
  Signal: "run",
  PacketApproval: "packet",
  EvalCase: "dataset",
  EvalResult: "evalRun",
  NotificationDelivery: "channel",
  ScheduleFire: "schedule",
};

const direct = new Set<string>(WORKSPACE_MODELS);

/** How a workspace may be found when nothing was entered: the console's page and action requests name theirs in a header. */
type Fallback = () => Promise<string | undefined>;
const shared = globalThis as unknown as { tetherWorkspaceFallback?: Fallback };
export function setWorkspaceFallback(source: Fallback): void {
  shared.tetherWorkspaceFallback = source;
}

/** The workspace the current code acts in, or null for the system (the worker, scripts, set-up). */
export async function activeWorkspace(): Promise<string | null> {
  const entered = enteredWorkspace();
  if (entered !== undefined) return entered;
  return (await shared.tetherWorkspaceFallback?.()) ?? null;
}

type Args = Record<string, unknown> & {
  where?: Record<string, unknown>;
  data?: unknown;
  create?: Record<string, unknown>;
};

const READS_AND_WRITES_BY_WHERE = new Set([
  "findUnique",
  "findUniqueOrThrow",
  "findFirst",
  "findFirstOrThrow",
  "findMany",
  "count",
  "aggregate",
  "groupBy",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "delete",
  "deleteMany",
  "upsert",
]);
const CREATES = new Set(["create", "createMany", "createManyAndReturn", "upsert"]);

function conditionFor(model: string, workspaceId: string): Record<string, unknown> | null {
  if (direct.has(model)) return { workspaceId };
  const parent = OWNED_THROUGH[model];
  return parent ? { [parent]: { workspaceId } } : null;
}

/** The arguments with the workspace's condition and id added; unchanged for models no workspace owns. */
export function scopeArgs(model: string, operation: string, args: Args, workspaceId: string): Args {
  const condition = conditionFor(model, workspaceId);
  if (!condition) return args;
  const scoped: Args = { ...args };
  if (READS_AND_WRITES_BY_WHERE.has(operation)) {
    const where = args.where ?? {};
    const and = where.AND === undefined ? [] : Array.isArray(where.AND) ? where.AND : [where.AND];
    scoped.where = { ...where, AND: [...and, condition] };
  }
  if (direct.has(model)) {
    if (CREATES.has(operation)) {
      const key = operation === "upsert" ? "create" : "data";
      const rows = args[key];
      scoped[key] = (
        Array.isArray(rows) ? rows.map((row) => owned(row, model, workspaceId)) : owned(rows, model, workspaceId)
      ) as Record<string, unknown>;
    }
    if (operation.startsWith("update") || operation === "upsert") {
      const data = (operation === "upsert" ? args.update : args.data) as Record<string, unknown> | undefined;
      if (data && "workspaceId" in data && data.workspaceId !== workspaceId) throw crossing(model, workspaceId);
    }
  }
  return scoped;
}

function owned(row: unknown, model: string, workspaceId: string): Record<string, unknown> {
  const data = (row ?? {}) as Record<string, unknown>;
  if (data.workspaceId !== undefined && data.workspaceId !== workspaceId) throw crossing(model, workspaceId);
  return { ...data, workspaceId };
}

const crossing = (model: string, workspaceId: string) =>
  new AppError("FORBIDDEN", {
    message: `a ${model} write in workspace ${workspaceId} named another workspace`,
    userMessage: "That belongs to another workspace.",
  });

/** Prisma's query extension that applies the scope: every model call asks which workspace is active. */
export const workspaceScope = {
  name: "workspace-scope",
  query: {
    $allModels: {
      async $allOperations({
        model,
        operation,
        args,
        query,
      }: {
        model: string;
        operation: string;
        args: Args;
        query: (args: Args) => Promise<unknown>;
      }) {
        if (!direct.has(model) && !(model in OWNED_THROUGH)) return query(args);
        // A frame entered (the worker driving a run, a token's request) is read without awaiting the fallback.
        const entered = enteredWorkspace();
        const workspaceId = entered !== undefined ? entered : await activeWorkspace();
        return query(workspaceId === null ? args : scopeArgs(model, operation, args, workspaceId));
      },
    },
  },
};
