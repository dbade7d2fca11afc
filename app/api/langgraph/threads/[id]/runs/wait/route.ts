import { langGraphPreflight } from "@/lib/langgraph/cors";
import { idParams } from "@/lib/api/schemas";
import { presentWaitResult } from "@/lib/langgraph/present";
import { resumeThread } from "@/lib/langgraph/resume-thread";
import { defineLangGraphRoute } from "@/lib/langgraph/route";
import { runOnThreadBody } from "@/lib/langgraph/schemas";
import { waitForThread } from "@/lib/langgraph/wait-thread";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

/** Resume, then answer the thread's values once it is no longer busy (or at the wait's ceiling): `__interrupt__`, `__error__` as LangGraph's. */
export const POST = defineLangGraphRoute(
  { scope: "packets:decide", params: idParams, body: runOnThreadBody },
  async ({ params, body, principal, runtime, db }) => {
    const deps = { runtime, db };
    await resumeThread(deps, {
      threadId: params.id,
      principal,
      resume: body.command.resume,
      assistantId: body.assistant_id ?? undefined,
    });
    return presentWaitResult(await waitForThread(deps, params.id));
  },
);
