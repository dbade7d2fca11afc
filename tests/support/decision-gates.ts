import { randomUUID } from "node:crypto";
import type { Role } from "../../lib/auth/rbac";
import { createWorkspace } from "../../lib/commands/create-workspace";
import type { Db } from "../../lib/db";
import type { AgentDefinition, DecisionPacket } from "../../lib/runtime";
import { expect } from "vitest";
import { DEFAULT_WORKSPACE_ID, inWorkspace } from "../../lib/runtime/workspace";
import type { WorkspaceRef } from "../../lib/workspaces/members";
import { setWorkspaceFallback } from "../../lib/workspaces/scope";
import { refundAgent } from "./agents";
import { createTestRuntime, grant, uid } from "./runtime";
import type { World } from "./world";

// Shared by the decision-link and Slack tests: people, workspaces, and a refund run waiting on its approval packet.

const OVER_LIMIT = { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" } as const;

/**
 * A person with this role in the default workspace, or, given `onlyIn`, in that workspace only (a membership there
 * and none in the default one, where they are then a stranger).
 */
export async function createPerson(
  db: Db,
  role: Role = "reviewer",
  opts: { onlyIn?: string } = {},
): Promise<{ id: string; email: string }> {
  const person = { id: `usr_${randomUUID().replaceAll("-", "")}`, email: `${uid(role)}@example.com` };
  await db.user.create({ data: { ...person, role } });
  if (opts.onlyIn) await db.membership.create({ data: { userId: person.id, workspaceId: opts.onlyIn, role } });
  return person;
}

/** A new workspace besides the default one, created by a new instance admin. */
export async function createOtherWorkspace(db: Db): Promise<WorkspaceRef> {
  const creator = await createPerson(db, "admin");
  await db.user.update({ where: { id: creator.id }, data: { instanceAdmin: true } });
  const slug = uid("team").toLowerCase();
  return createWorkspace({ db }, { slug, name: `Team ${slug}` }, { by: creator.email });
}

/** A run of a fresh refund agent waiting on its approval packet in `queue`, started by `startedBy`. */
export async function waitingRefundPacket(
  t: ReturnType<typeof createTestRuntime>,
  world: World,
  agents: AgentDefinition[],
  opts: { queue?: string; startedBy?: string } = {},
): Promise<DecisionPacket> {
  const agent = refundAgent(uid("link-refund"));
  agents.push(agent);
  t.runtime.context.agents.set(agent.slug, agent);
  await grant(t.runtime, agent, {
    "payments.refund": { conditions: [OVER_LIMIT], queue: opts.queue ?? uid("refunds") },
  });
  const orderId = uid("order");
  world.orders.set(orderId, { id: orderId, amountCents: 24_000, status: "paid" });
  const { run } = await t.runtime.startRun({
    agent: agent.slug,
    input: { orderId, email: "bob@example.com" },
    ...(opts.startedBy ? { startedBy: opts.startedBy } : {}),
  });
  await t.runtime.createWorker().drain();
  const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
  if (!packet) throw new Error(`run ${run.id} is not waiting on a packet`);
  return packet;
}

/** What a refused decision must leave as it was: the packet, its audit rows, and every link of it. */
export async function decisionFootprint(db: Db, packetId: string) {
  const [packet, audits, links] = await Promise.all([
    db.decisionPacket.findUniqueOrThrow({
      where: { id: packetId },
      select: { status: true, version: true, decidedBy: true, decision: true },
    }),
    db.auditLog.count({ where: { target: packetId } }),
    db.decisionLink.findMany({
      where: { packetId },
      select: { id: true, usedAt: true, usedFor: true },
      orderBy: { id: "asc" },
    }),
  ]);
  return { packet, audits, links };
}

/**
 * Runs `fn` (a request to a public route: a decision link, a Slack button) as the console serves it: a request
 * whose URL names no workspace falls back to the default one for every Prisma call (lib/workspaces/request.ts).
 */
export async function asConsoleRequest<T>(fn: () => Promise<T>): Promise<T> {
  setWorkspaceFallback(async () => DEFAULT_WORKSPACE_ID);
  try {
    return await fn();
  } finally {
    setWorkspaceFallback(async () => undefined);
  }
}

/**
 * The decision's audit trail is the packet's workspace's alone: one "packets.decide" row there, made `via` the
 * channel (the column's default would say "default"), and nothing about the packet or the person in the default one.
 */
export async function expectDecisionAuditedOnlyIn(
  db: Db,
  workspaceId: string,
  opts: { packetId: string; reviewer: string; via: string },
) {
  const about = { OR: [{ target: opts.packetId }, { actor: opts.reviewer }] };
  const audit = await db.auditLog.findMany({ where: about });
  expect(audit.map((row) => [row.action, row.workspaceId])).toEqual([["packets.decide", workspaceId]]);
  expect(JSON.parse(audit[0]!.data)).toMatchObject({ via: opts.via, decision: "approve" });
  expect(await inWorkspace(DEFAULT_WORKSPACE_ID, () => db.auditLog.count({ where: about }))).toBe(0);
}
