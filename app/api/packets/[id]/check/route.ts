import { defineRoute } from "@/lib/api/route";
import { idParams } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

/** "Check now" for an unknown-outcome packet: the tool's lookup by operation id. Reads only; → {check}. */
export const POST = defineRoute({ scope: "packets:decide", params: idParams }, async ({ params, runtime }) => {
  const check = await runtime.checkUnknownOutcome({ packetId: params.id });
  return { check: { ...check, checkedAt: check.checkedAt.toISOString() } };
});
