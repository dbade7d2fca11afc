// Read models for the inbox. Pages and the console's polling routes call these, never Prisma. Each
// takes its dependencies (store, tool lookup, database) with the running console's as the default,
// so the integration tests run the same functions on SQLite and Postgres.
import { z } from "zod";
import { can, type Role } from "@/lib/auth/rbac";
import { getDb, type Db } from "@/lib/db";
import { impactLevel, type ImpactLevel, type ToolTraits } from "@/lib/runtime/impact";
import type { JsonSchema } from "@/lib/inbox/schema-form";
import { budgetExtensionSchema } from "@/lib/runtime/budget";
import { findTool, type ToolScope } from "@/lib/runtime/context";
import type { RuntimeStore } from "@/lib/runtime/store";
import type { DecisionPacket, RunStatus, ToolDefinition } from "@/lib/runtime/types";
import { getRuntime } from "@/lib/runtime.server";
import { activeWorkspace } from "@/lib/workspaces/scope";
import { countPendingIn, findInboxPage, type InboxPage, type InboxPageRequest } from "./inbox-page";
import { findRunParent, type RunLink } from "./run-family";

/** findTool: by name, and for a run when given (a run's own tools: an open gate's requested action). */
export type InboxDeps = {
  store: RuntimeStore;
  db: Db;
  findTool: (name: string, run?: ToolScope) => Promise<ToolDefinition | undefined>;
};

function consoleDeps(): InboxDeps {
  const runtime = getRuntime();
  return { store: runtime.store, db: getDb(), findTool: (name, run) => findTool(runtime.context, name, run) };
}

/** The console's inbox page, in the request's workspace: the running console's database and tool registry. */
export async function findConsoleInboxPage(
  request: Omit<InboxPageRequest, "workspaceId">,
  deps: InboxDeps = consoleDeps(),
): Promise<InboxPage> {
  return findInboxPage(deps.db, { ...request, workspaceId: await activeWorkspace() }, deps.findTool);
}

/** The navigation's badge: the request's workspace's pending packets, and how many of them are assigned to `me`. */
export async function countPendingPackets(
  me: string,
  deps: Pick<InboxDeps, "db"> = { db: getDb() },
): Promise<{ pending: number; mine: number }> {
  return countPendingIn(deps.db, me, await activeWorkspace());
}

/** One decision packet, or null when there is none with that id. */
export async function findPacket(
  id: string,
  deps: Pick<InboxDeps, "store"> = { store: getRuntime().store },
): Promise<DecisionPacket | null> {
  return deps.store.getPacket(id, await activeWorkspace());
}

export type PacketView = {
  packet: DecisionPacket;
  traits: ToolTraits;
  impactLevel: ImpactLevel;
  /** The tool's argument schema as plain JSON Schema (the edit form is generated from it); null: edit as JSON. */
  argsSchema: JsonSchema | null;
  /** The tool can look its calls up by operation id ("Check now" on an unknown outcome). */
  canLookUp: boolean;
  /** `parent`: a child run's parent (its agent, its step that started the run), for the reviewer's context. */
  run: { status: RunStatus; agent: string; parent: RunLink | null } | null;
};

/** Everything the packet page shows, or null when there is no such packet. */
export async function getPacketView(id: string, deps: InboxDeps = consoleDeps()): Promise<PacketView | null> {
  const packet = await deps.store.getPacket(id, await activeWorkspace());
  if (!packet) return null;
  const run = await deps.store.getRun(packet.runId);
  const tool = await deps.findTool(packet.tool, run).catch(() => undefined);
  const traits = tool ? { capability: tool.capability, semantics: tool.semantics } : null;
  // A budget packet's "arguments" are the extension the reviewer approves or edits (runtime budget.ts).
  const argsSchema =
    packet.kind === "BUDGET" ? argsJsonSchema({ input: budgetExtensionSchema }) : tool ? argsJsonSchema(tool) : null;
  const parent = run ? await findRunParent(run, deps.db) : null;
  return {
    packet,
    traits,
    impactLevel: impactLevel(packet.tool, traits, packet.kind),
    argsSchema,
    canLookUp: Boolean(tool?.lookup),
    run: run ? { status: run.status, agent: run.agentSlug, parent } : null,
  };
}

/** zod → JSON Schema on the server, so the client gets a plain object it can render a form from. */
export function argsJsonSchema(tool: Pick<ToolDefinition, "input" | "editableFields">): JsonSchema | null {
  try {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input, {
      io: "input",
      unrepresentable: "any",
    }) as JsonSchema & { $schema?: string };
    const editable = tool.editableFields;
    if (editable && schema.properties) {
      schema.properties = Object.fromEntries(
        Object.entries(schema.properties).map(([name, property]) => [
          name,
          editable.includes(name) ? property : { ...property, readOnly: true },
        ]),
      );
    }
    return schema;
  } catch {
    return null; // a schema JSON Schema cannot express: the reviewer edits the JSON
  }
}

export type Decider = { email: string; name: string | null; role: Role };

/** People who may decide packets (an assignee must be one of them). */
export async function findDeciders(deps: Pick<InboxDeps, "db"> = { db: getDb() }): Promise<Decider[]> {
  const rows = await deps.db.user.findMany({
    where: { disabledAt: null },
    select: { email: true, name: true, role: true },
    orderBy: { email: "asc" },
  });
  return rows.filter((row): row is Decider => can(row.role as Role, "packets:decide"));
}

export async function isDecider(email: string, deps: Pick<InboxDeps, "db"> = { db: getDb() }): Promise<boolean> {
  const row = await deps.db.user.findUnique({ where: { email }, select: { role: true, disabledAt: true } });
  return !!row && !row.disabledAt && can(row.role as Role, "packets:decide");
}
