import { langGraphPreflight } from "@/lib/langgraph/cors";
import { presentWaitResult } from "@/lib/langgraph/present";
import { defineResumeRoute } from "@/lib/langgraph/resume-route";
import { waitForThread } from "@/lib/langgraph/wait-thread";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

/** Resume, then answer the thread's values once it is no longer busy (or at the wait's ceiling): `__interrupt__`, `__error__` as LangGraph's. */
export const POST = defineResumeRoute(async (_resumed, { deps, threadId }) =>
  presentWaitResult(await waitForThread(deps, threadId)),
);
