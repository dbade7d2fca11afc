import type { Db } from "@/lib/db";
import { escalationQueues, expiryPolicyOf } from "@/lib/runtime/expiry";

// The decision queues that exist: "default", every queue whose deciders were named, and every queue a
// permission rule asks in or escalates to. An open gate may only be asked (or escalated) into one of them,
// so a typo does not park a packet in a queue nobody watches.

export async function findKnownQueues(db: Db): Promise<Set<string>> {
  const [named, rules] = await Promise.all([
    db.decisionQueue.findMany({ select: { name: true } }),
    db.permission.findMany({ select: { queue: true, onExpire: true } }),
  ]);
  const queues = new Set<string>(["default", ...named.map((q) => q.name)]);
  for (const rule of rules) {
    queues.add(rule.queue);
    for (const queue of escalationQueues(expiryPolicyOf(rule.onExpire))) queues.add(queue);
  }
  return queues;
}
