import { randomUUID } from "node:crypto";
import type { Role } from "../../lib/auth/rbac";
import type { Db } from "../../lib/db";
import type { AgentDefinition, DecisionPacket } from "../../lib/runtime";
import { refundAgent } from "./agents";
import { createTestRuntime, grant, uid } from "./runtime";
import type { World } from "./world";

// Shared by the decision-link and Slack tests: people, and a refund run waiting on its approval packet.

const OVER_LIMIT = { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" } as const;

export async function createPerson(db: Db, role: Role = "reviewer"): Promise<{ id: string; email: string }> {
  const person = { id: `usr_${randomUUID().replaceAll("-", "")}`, email: `${uid(role)}@example.com` };
  await db.user.create({ data: { ...person, role } });
  return person;
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
