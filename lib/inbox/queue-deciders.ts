import { roleIn } from "@/lib/workspaces/members";
import { z } from "zod";
import { can, ROLES, type Role } from "@/lib/auth/rbac";
import type { Db } from "@/lib/db";
import type { DecisionPacket } from "@/lib/runtime/types";

// Who may decide a packet, beyond holding packets:decide:
// - a queue may name its deciders (roles or people); a queue nobody named is open to every decider;
// - an unknown outcome ("did it happen? run it again?") is settled only by people whose role may operate
//   runs — a reviewer of refunds does not re-run a migration.
// The engine asks this before every decision (RuntimeOptions.authorizeDecision); the console asks it to
// show or hide the decision form, and before assigning a packet to someone.

export const queueDecidersSchema = z
  .object({
    roles: z.array(z.enum(ROLES)).max(ROLES.length).default([]),
    people: z.array(z.string().trim().toLowerCase().email("Give each person's email.")).max(200).default([]),
  })
  .strict(); // a misspelt key ("role") must not silently reopen the queue to every decider
export type QueueDeciders = { name: string; roles: Role[]; people: string[]; updatedBy: string; updatedAt: Date };

/** A decision queue's name (the deciders and the notification channels of a queue name it). */
export const queueNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\w-]+$/, "Use letters, digits, - and _.");

/** Why this person may not decide this packet; null when they may. */
export async function whyNotDecider(
  db: Db,
  email: string,
  packet: Pick<DecisionPacket, "queue" | "kind" | "workspaceId">,
): Promise<string | null> {
  const [user, queue] = await Promise.all([
    roleIn(db, { email }, packet.workspaceId),
    db.decisionQueue.findUnique({
      where: { workspaceId_name: { workspaceId: packet.workspaceId, name: packet.queue } },
    }),
  ]);
  if (!user) return `${email} is not an active person of this workspace.`;
  const role = user;
  if (!can(role, "packets:decide")) return "Your role may not decide packets.";
  if (packet.kind === "UNKNOWN_OUTCOME" && !can(role, "runs:operate")) {
    return "Whether an uncertain call happened, and whether to run it again, is settled by an operator or an admin.";
  }
  if (queue) {
    const roles = JSON.parse(queue.roles) as string[];
    const people = JSON.parse(queue.people) as string[];
    if ((roles.length > 0 || people.length > 0) && !roles.includes(role) && !people.includes(email)) {
      return `The queue "${packet.queue}" is decided by ${[...roles.map((r) => `${r}s`), ...people].join(", ")}.`;
    }
  }
  return null;
}
