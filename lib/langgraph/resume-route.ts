import type { z } from "zod";
import { idParams } from "@/lib/api/schemas";
import { resumeThread } from "./resume-thread";
import { defineLangGraphRoute } from "./route";
import { runOnThreadBody } from "./schemas";
import type { LangGraphDeps } from "./threads";

// POST /threads/:id/runs and its /stream and /wait forms resume the same way (the thread's packets decided
// with command.resume, lib/langgraph/resume-thread.ts) and differ only in what they answer.

type Resumed = Awaited<ReturnType<typeof resumeThread>>;
type ResumeContext = { deps: LangGraphDeps; threadId: string; body: z.infer<typeof runOnThreadBody> };

/** A resume route: a refusal is answered before `answer` runs; `answer` gets the resumed thread. */
export function defineResumeRoute(answer: (resumed: Resumed, context: ResumeContext) => Promise<unknown> | unknown) {
  return defineLangGraphRoute(
    { scope: "packets:decide", params: idParams, body: runOnThreadBody },
    async ({ params, body, principal, runtime, db }) => {
      const deps = { runtime, db };
      const resumed = await resumeThread(deps, {
        threadId: params.id,
        principal,
        resume: body.command.resume,
        assistantId: body.assistant_id ?? undefined,
      });
      return answer(resumed, { deps, threadId: params.id, body });
    },
  );
}
