import { langGraphPreflight } from "@/lib/langgraph/cors";
import { idParams } from "@/lib/api/schemas";
import { presentResumeRun } from "@/lib/langgraph/present";
import { resumeThread } from "@/lib/langgraph/resume-thread";
import { defineLangGraphRoute } from "@/lib/langgraph/route";
import { runOnThreadBody } from "@/lib/langgraph/schemas";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

/** Resume with command.resume (lib/langgraph/resume.ts): the thread's packets are decided; the worker continues the run. */
export const POST = defineLangGraphRoute(
  { scope: "packets:decide", params: idParams, body: runOnThreadBody },
  async ({ params, body, principal, runtime, db }) => {
    const { view, decided } = await resumeThread(
      { runtime, db },
      { threadId: params.id, principal, resume: body.command.resume, assistantId: body.assistant_id ?? undefined },
    );
    return presentResumeRun(view.run, decided);
  },
);
