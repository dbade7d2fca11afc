import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import type { OutcomeCheck, Runtime } from "@/lib/runtime";

// "Check now" on an unknown-outcome packet (the console's inbox, POST /api/packets/:id/check): the outside
// system's record, through the tool's lookup. It changes nothing in Tether; the "packets.check_outcome" row
// records who asked and what was found, since the person decides on what it said.

export type CheckUnknownOutcomeCommand = { packetId: string; by: string; via?: string };

export async function checkUnknownOutcome(
  deps: { db: Db; runtime: Pick<Runtime, "checkUnknownOutcome"> },
  command: CheckUnknownOutcomeCommand,
): Promise<OutcomeCheck> {
  const check = await deps.runtime.checkUnknownOutcome({ packetId: command.packetId });
  await auditChange(deps.db, command, "packets.check_outcome", {
    target: command.packetId,
    data: { found: check.found, receipt: check.receipt },
  });
  return check;
}
