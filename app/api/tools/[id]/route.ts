import { defineRoute, tokenActor } from "@/lib/api/route";
import { idParams } from "@/lib/api/schemas";
import { disableTool } from "@/lib/commands/set-tool-disabled";

export const dynamic = "force-dynamic";

/** Disable a registered tool: runs stop finding it at their next use of it. */
export const DELETE = defineRoute({ scope: "admin", params: idParams }, async ({ params, principal, db }) => ({
  tool: await disableTool({ db }, params.id, tokenActor(principal)),
}));
