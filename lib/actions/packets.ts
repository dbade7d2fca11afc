"use server";
// Server actions on decision packets. The inbox UI calls these; the HTTP API's
// POST /api/packets/:id/decision calls the same runtime function.
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { assignInboxPacket, assignPacketSchema } from "@/lib/inbox/assign-packet";
import { checkUnknownOutcome } from "@/lib/commands/check-unknown-outcome";
import { decidePacketsTogether } from "@/lib/commands/decide-packets-together";
import { decideTogetherSchema } from "@/lib/inbox/decide-together";
import { getDb } from "@/lib/db";
import { whyNotDecider } from "@/lib/inbox/queue-deciders";
import { isDecider } from "@/lib/queries/packets";
import { decidePacketSchema } from "@/lib/runtime/decide-packet";
import { getRuntime } from "@/lib/runtime.server";

const decidePacketActionSchema = z
  .object({ packetId: z.string().trim().min(1, "Which packet?") })
  .and(decidePacketSchema);
export type DecidePacketActionInput = z.input<typeof decidePacketActionSchema>;

/** {packetId, decision: approve|edit|reject|redirect (approvals) or happened|retry|skip|redirect (unknown outcomes), …} — decided as the signed-in person. */
export const decidePacketAction = defineAction(
  {
    schema: decidePacketActionSchema,
    scope: "packets:decide",
    audit: { action: "packets.decide", byHandler: true }, // decidePacket audits in the decision's transaction
  },
  async ({ packetId, ...input }, { user, revalidatePath }) => {
    const packet = await getRuntime().decidePacket({ packetId, reviewer: user.email, input });
    revalidatePath("/inbox");
    revalidatePath(`/runs/${packet.runId}`);
    return { packetId: packet.id, runId: packet.runId, status: packet.status };
  },
);

/** "Check now": the outside system's record of an unknown outcome, through the tool's lookup. Reads only. */
export const checkUnknownOutcomeAction = defineAction(
  {
    schema: z.object({ packetId: z.string().trim().min(1, "Which packet?") }),
    scope: "packets:decide",
    audit: { action: "packets.check_outcome", byHandler: true }, // the command records the check
  },
  async ({ packetId }, { user, db }) => {
    const check = await checkUnknownOutcome({ db, runtime: getRuntime() }, { packetId, by: user.email });
    return {
      found: check.found,
      receipt: check.receipt,
      result: check.result,
      checkedAt: check.checkedAt.toISOString(),
    };
  },
);

/** Approve or reject several packets of one tool: one runtime decision per packet, one result each. Each
 *  decision has its own audit row (in its transaction); the command adds a row for the batch as a whole. */
export const decidePacketsTogetherAction = defineAction(
  {
    schema: decideTogetherSchema,
    scope: "packets:decide",
    audit: { action: "packets.decide_bulk", byHandler: true }, // each decision audits in its transaction, the command the batch
  },
  async (input, { user, db, revalidatePath }) => {
    const results = await decidePacketsTogether(
      { db, runtime: getRuntime() },
      { input, by: user.email, workspaceId: user.workspace?.id ?? null },
    );
    revalidatePath("/inbox");
    return results;
  },
);

/** Claim (assignee = me), assign to another person who may decide, or unassign (null). */
export const assignPacketAction = defineAction(
  {
    schema: assignPacketSchema,
    scope: "packets:decide",
    audit: { action: "packets.assign", byHandler: true }, // assignPacket audits in the assignment's transaction
  },
  async ({ packetId, assignee }, { user, revalidatePath }) => {
    const runtime = getRuntime();
    const decides = async (email: string) => {
      const packet = await runtime.store.getPacket(packetId, user.workspace?.id ?? null);
      return packet ? (await whyNotDecider(getDb(), email, packet)) === null : isDecider(email);
    };
    const packet = await assignInboxPacket(
      { isDecider: decides, assignPacket: (opts) => runtime.assignPacket(opts) },
      { packetId, assignee, by: user.email },
    );
    revalidatePath("/inbox");
    revalidatePath(`/inbox/${packet.id}`);
    return { packetId: packet.id, assignee: packet.assignee };
  },
);
