import { langGraphPreflight } from "@/lib/langgraph/cors";
import { defineResumeRoute } from "@/lib/langgraph/resume-route";
import { streamModesOf, streamThread } from "@/lib/langgraph/wait-thread";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

/** Resume, then stream the run as SSE (lib/langgraph/wait-thread.ts) until the thread is no longer busy. A refusal is a JSON error, before any stream. */
export const POST = defineResumeRoute(({ view, decided }, { deps, body }) => {
  const stream = streamThread(deps, {
    view,
    runId: decided[0]?.id ?? view.run.id,
    modes: streamModesOf(body.stream_mode ?? undefined),
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  });
});
