import type { ApiPrincipal } from "@/lib/api/tokens";
import { AppError } from "@/lib/runtime/errors";
import type { DecisionPacket } from "@/lib/runtime/types";
import { resumeThread } from "./resume-thread";
import type { ThreadView } from "./present";
import { getThread, type LangGraphDeps } from "./threads";

// The Agent Inbox's "Mark as resolved" writes the thread's state (values: null, as_node: "__end__") to
// end it without resuming the graph. Tether never lets a client write a run's state, and an approval
// does not go away unanswered: the honest equivalent is to answer every pending interrupt "ignore",
// i.e. a redirect telling the agent to leave the proposed action (decided like any other decision).
// A packet that does not offer redirect cannot be dismissed here and is refused before anything is decided.

export async function dismissThread(
  deps: LangGraphDeps,
  opts: { threadId: string; principal: ApiPrincipal },
): Promise<{ view: ThreadView; decided: DecisionPacket[] }> {
  const view = await getThread(deps, opts.threadId);
  if (view.pending.length === 0) {
    throw new AppError("CONFLICT", {
      message: `thread ${view.run.id} has nothing to dismiss`,
      userMessage: `Thread ${view.run.id} has no pending interrupt to dismiss (the run is ${view.run.status.toLowerCase()}).`,
    });
  }
  return resumeThread(deps, {
    ...opts,
    resume: Object.fromEntries(view.pending.map((packet) => [packet.id, { type: "ignore", args: null }])),
  });
}
