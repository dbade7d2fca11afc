import { defineRoute } from "@/lib/api/route";
import { idParams } from "@/lib/api/schemas";
import { getDb } from "@/lib/db";
import { disableTool } from "@/lib/tools/registered";

export const dynamic = "force-dynamic";

/** Disable a registered tool: runs stop finding it at their next use of it. */
export const DELETE = defineRoute({ scope: "admin", params: idParams }, async ({ params, principal }) => ({
  tool: await disableTool(getDb(), params.id, principal.principal),
}));
