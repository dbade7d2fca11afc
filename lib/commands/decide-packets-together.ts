import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import {
  decidePacketsTogether as decideEach,
  type BulkResult,
  type decideTogetherSchema,
} from "@/lib/inbox/decide-together";
import type { Runtime } from "@/lib/runtime";
import type { z } from "zod";

// Approving or rejecting several packets of one tool at once (the console's inbox). Each decision is the
// runtime's, with its own audit row in its own transaction; this adds the "packets.decide_bulk" row for the
// batch as a whole (the decision and every packet's result) once they are made.

export type DecidePacketsTogetherCommand = {
  input: z.output<typeof decideTogetherSchema>;
  by: string;
  via?: string;
  /** The workspace the reviewer acts in: another's packets are not found. */
  workspaceId: string | null;
};

export async function decidePacketsTogether(
  deps: { db: Db; runtime: Pick<Runtime, "store" | "decidePacket"> },
  command: DecidePacketsTogetherCommand,
): Promise<BulkResult[]> {
  const { input } = command;
  const results = await decideEach(
    {
      getPacket: (id) => deps.runtime.store.getPacket(id, command.workspaceId),
      decidePacket: (opts) => deps.runtime.decidePacket({ ...opts, workspaceId: command.workspaceId }),
    },
    { input, reviewer: command.by },
  );
  await auditChange(deps.db, command, "packets.decide_bulk", {
    data: { decision: input.decision, reason: "reason" in input ? input.reason : undefined, results },
  });
  return results;
}
