import { langGraphPreflight } from "@/lib/langgraph/cors";
import { idParams } from "@/lib/api/schemas";
import { dismissThread } from "@/lib/langgraph/dismiss-thread";
import { presentThreadState } from "@/lib/langgraph/present";
import { defineLangGraphRoute } from "@/lib/langgraph/route";
import { updateStateBody } from "@/lib/langgraph/schemas";
import { getThread } from "@/lib/langgraph/threads";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

export const GET = defineLangGraphRoute({ scope: "runs:read", params: idParams }, async ({ params, runtime, db }) =>
  presentThreadState(await getThread({ runtime, db }, params.id)),
);

/** The Agent Inbox's "Mark as resolved" (values: null, as_node: "__end__"): each pending interrupt is answered "ignore" (lib/langgraph/dismiss-thread.ts). */
export const POST = defineLangGraphRoute(
  { scope: "packets:decide", params: idParams, body: updateStateBody },
  async ({ params, principal, runtime, db }) => {
    const { view } = await dismissThread({ runtime, db }, { threadId: params.id, principal });
    const run = await runtime.getRun(view.run.id);
    return {
      checkpoint: { thread_id: run.id, checkpoint_ns: "", checkpoint_id: String(run.stateSeq), checkpoint_map: null },
    };
  },
);
