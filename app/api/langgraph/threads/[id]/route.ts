import { langGraphPreflight } from "@/lib/langgraph/cors";
import { idParams } from "@/lib/api/schemas";
import { presentThread } from "@/lib/langgraph/present";
import { defineLangGraphRoute } from "@/lib/langgraph/route";
import { getThread } from "@/lib/langgraph/threads";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

export const GET = defineLangGraphRoute({ scope: "runs:read", params: idParams }, async ({ params, runtime, db }) =>
  presentThread(await getThread({ runtime, db }, params.id)),
);
