import { describe, expect, it } from "vitest";
import { replayAgentRuns } from "../lib/replay";
import { childResult, defineAgent, spawn, z } from "../lib/sdk";
import { createTestRuntime, providers, uid } from "./support/runtime";

// Replay of an agent that starts child runs: each spawn is answered as the recorded child ended, so the
// unchanged agent replays clean and a changed one is caught (the replay does not start the child agent again).

describe.each(providers())("replay of a run that spawned a child [%s]", (_provider, url) => {
  const reviewerSlug = uid("reviewer");
  const deskSlug = uid("desk");
  const reviewer = defineAgent({
    slug: reviewerSlug,
    description: "Reviews",
    instructions: "Approve it.",
    input: z.object({ orderId: z.string() }),
    tools: [],
    policy: ({ input }) => ({ kind: "complete", output: { orderId: input.orderId, approved: true } }),
  });
  const desk = (changed: boolean) =>
    defineAgent({
      slug: deskSlug,
      description: "Asks the reviewer first",
      instructions: "Have it reviewed.",
      input: z.object({ orderId: z.string() }),
      tools: [],
      spawns: [reviewerSlug],
      policy: ({ input, state }) => {
        const review = childResult(state, reviewerSlug);
        if (!review) return spawn(reviewerSlug, { orderId: input.orderId });
        return { kind: "complete", output: changed ? { orderId: input.orderId, approved: false } : review.output };
      },
    });

  it("the unchanged agent replays the same from the recorded child's outcome; a changed one differs", async () => {
    const t = createTestRuntime(url, { agents: [desk(false).definition, reviewer.definition] });
    try {
      const { run } = await t.runtime.startRun({ agent: deskSlug, input: { orderId: "ord_r1" } });
      await t.runtime.createWorker().drain();
      const recorded = await t.runtime.getRun(run.id);
      expect(recorded.status).toBe("COMPLETED");
      expect(recorded.state.output).toEqual({ orderId: "ord_r1", approved: true });

      const replay = (agent: ReturnType<typeof desk>) =>
        replayAgentRuns({ source: t.store, agent, tools: [], selection: { runIds: [run.id] } });
      const same = await replay(desk(false));
      expect(same.runs.map((r) => [r.verdict, r.replayedStatus])).toEqual([["same", "COMPLETED"]]);
      expect(same.ok).toBe(true);
      const changed = await replay(desk(true));
      expect(changed.runs[0].verdict).toBe("differs");
      expect(changed.ok).toBe(false);
    } finally {
      await t.close();
    }
  });
});
