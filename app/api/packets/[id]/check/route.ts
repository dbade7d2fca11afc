import { defineRoute, tokenActor } from "@/lib/api/route";
import { idParams } from "@/lib/api/schemas";
import { checkUnknownOutcome } from "@/lib/commands/check-unknown-outcome";

export const dynamic = "force-dynamic";

/** "Check now" for an unknown-outcome packet: the tool's lookup by operation id. Changes nothing but is audited (as in the console); → {check}. */
export const POST = defineRoute(
  { scope: "packets:decide", params: idParams },
  async ({ params, principal, runtime, db }) => {
    const check = await checkUnknownOutcome({ db, runtime }, { packetId: params.id, ...tokenActor(principal) });
    return { check: { ...check, checkedAt: check.checkedAt.toISOString() } };
  },
);
