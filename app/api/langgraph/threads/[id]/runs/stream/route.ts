import { langGraphPreflight } from "@/lib/langgraph/cors";
import { idParams } from "@/lib/api/schemas";
import { resumeThread } from "@/lib/langgraph/resume-thread";
import { defineLangGraphRoute } from "@/lib/langgraph/route";
import { runOnThreadBody } from "@/lib/langgraph/schemas";
import { streamModesOf, streamThread } from "@/lib/langgraph/wait-thread";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

/** Resume, then stream the run as SSE (lib/langgraph/wait-thread.ts) until the thread is no longer busy. A refusal is a JSON error, before any stream. */
export const POST = defineLangGraphRoute(
  { scope: "packets:decide", params: idParams, body: runOnThreadBody },
  async ({ params, body, principal, runtime, db }) => {
    const deps = { runtime, db };
    const { view, decided } = await resumeThread(deps, {
      threadId: params.id,
      principal,
      resume: body.command.resume,
      assistantId: body.assistant_id ?? undefined,
    });
    const stream = streamThread(deps, {
      view,
      runId: decided[0]?.id ?? view.run.id,
      modes: streamModesOf(body.stream_mode ?? undefined),
    });
    return new Response(stream, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
    });
  },
);
