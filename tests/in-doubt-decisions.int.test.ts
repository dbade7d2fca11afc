import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { latestFact, ToolError, type ToolDefinition } from "../lib/runtime";
import { scriptedAgent } from "./support/agents";
import { createTestRuntime, expectError, grant, providers, uid } from "./support/runtime";

// An effect whose outcome is unknown is decided in words that say what happened and what runs next:
// "happened" (with the receipt), "retry" (it did not happen — run it again), "skip" (it did not happen —
// go on without it), "redirect". Approve and reject are for approval packets only.

/** A system whose first request is applied but its answer lost (the call times out); `lookup` is optional. */
function lossySystem(opts: { semantics: "unsafe" | "reconcilable" }) {
  const applied: Array<{ operationId: string; receiptId: string }> = [];
  let lookupWorks = false;
  const tool: ToolDefinition = {
    name: `lossy.send.${uid("t")}`,
    description: "sends; the first answer is lost",
    capability: "execute",
    semantics: opts.semantics,
    input: z.object({ to: z.string() }),
    impact: ({ to }) => `sends to ${to}`,
    receiptId: (result) => (result as { receiptId: string }).receiptId,
    async run(_args, ctx) {
      const receipt = { operationId: ctx.operationId, receiptId: `rcpt-${applied.length + 1}` };
      applied.push(receipt);
      if (applied.length === 1) throw new ToolError("timeout", "no answer in time");
      return receipt;
    },
    ...(opts.semantics === "reconcilable"
      ? {
          async lookup(_args: unknown, ctx: { operationId: string }) {
            if (!lookupWorks) throw new Error("the sent folder is unreachable");
            return applied.find((a) => a.operationId === ctx.operationId) ?? null;
          },
        }
      : {}),
  };
  return {
    tool,
    applied,
    restoreLookup: () => {
      lookupWorks = true;
    },
  };
}

describe.each(providers())("in-doubt decisions [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  beforeAll(() => {
    t = createTestRuntime(url, { tools: [], retryBaseDelayMs: 1 });
  });
  afterAll(async () => {
    await t.close();
  });
  const drain = () => t.runtime.createWorker().drain();

  /** A run that called the system once and now waits for a person on an unknown outcome. */
  async function runInDoubt(system: ReturnType<typeof lossySystem>, startedBy = "starter@example.com") {
    t.runtime.context.tools.set(system.tool.name, system.tool);
    const agent = scriptedAgent(
      uid("lossy"),
      [system.tool.name],
      [
        { kind: "call", tool: system.tool.name, args: { to: "a@example.com" }, resultKey: "sent", evidence: [] },
        ({ state }) => ({
          kind: "complete",
          output: { sent: latestFact(state, "sent") ?? null, observed: state.observations.at(-1)?.message ?? null },
        }),
      ],
    );
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent);
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {}, startedBy });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("NEEDS_ATTENTION");
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    expect(packet).toMatchObject({
      kind: "UNKNOWN_OUTCOME",
      content: { options: ["happened", "retry", "skip", "redirect"] },
    });
    return { run, packet };
  }

  it("approve, reject and edit are refused on an unknown outcome, and change nothing", async () => {
    const system = lossySystem({ semantics: "unsafe" });
    const { run, packet } = await runInDoubt(system);
    for (const input of [
      { decision: "approve" },
      { decision: "reject", reason: "no" },
      { decision: "edit", args: { to: "b@example.com" } },
    ]) {
      const error = await expectError(
        t.runtime.decidePacket({ packetId: packet.id, reviewer: "ops@example.com", input }),
        "INVALID_INPUT",
      );
      expect(error.userMessage).toMatch(/happened, retry, skip, redirect/);
    }
    expect(await t.store.getPacket(packet.id, null)).toMatchObject({ status: "PENDING", version: packet.version });
    expect((await t.runtime.getRun(run.id)).status).toBe("NEEDS_ATTENTION");
  });

  it("happened: never called again; the person's word, with the receipt, is the step's result", async () => {
    const system = lossySystem({ semantics: "unsafe" });
    const { run, packet } = await runInDoubt(system);
    const decided = await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "ops@example.com",
      input: { decision: "happened", receipt: "rcpt-1", note: "seen in the system's log" },
    });
    expect(decided).toMatchObject({
      status: "CONFIRMED",
      decision: { decision: "happened", receipt: "rcpt-1", note: "seen in the system's log" },
      decidedBy: "ops@example.com",
    });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(system.applied).toHaveLength(1);
    expect(done.state.output).toMatchObject({
      sent: {
        kind: "decision",
        value: { happened: true, receipt: "rcpt-1", confirmedBy: "ops@example.com" },
        source: { receiptId: "rcpt-1", packetId: packet.id },
      },
    });
    const [intent] = await t.store.listIntents(run.id);
    expect(intent).toMatchObject({ status: "RESOLVED", result: { decision: "happened", receipt: "rcpt-1" } });
    expect((await t.runtime.recoveryView(run.id)).mayHaveHappened).toEqual([]);
  });

  it("retry: runs the call again under the same operation id; never by whoever started the run", async () => {
    const system = lossySystem({ semantics: "unsafe" });
    const { run, packet } = await runInDoubt(system, "starter@example.com");
    await expectError(
      t.runtime.decidePacket({ packetId: packet.id, reviewer: "starter@example.com", input: { decision: "retry" } }),
      "FORBIDDEN",
    );
    expect(
      await t.runtime.decidePacket({ packetId: packet.id, reviewer: "ops@example.com", input: { decision: "retry" } }),
    ).toMatchObject({ status: "RETRIED" });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(system.applied).toHaveLength(2);
    expect(system.applied[1].operationId).toBe(system.applied[0].operationId);
    expect(done.state.output).toMatchObject({ sent: { kind: "receipt", value: { receiptId: "rcpt-2" } } });
    const [intent] = await t.store.listIntents(run.id);
    expect(intent.status).toBe("SUCCEEDED");
  });

  it("skip: the call is recorded as not done, not repeated, and the agent is told", async () => {
    const system = lossySystem({ semantics: "unsafe" });
    const { run, packet } = await runInDoubt(system);
    expect(
      await t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "ops@example.com",
        input: { decision: "skip", reason: "the customer withdrew" },
      }),
    ).toMatchObject({ status: "SKIPPED" });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(system.applied).toHaveLength(1);
    expect(done.state.output).toMatchObject({
      sent: null,
      observed: expect.stringMatching(/did not happen; it is skipped: the customer withdrew/),
    });
    const [intent] = await t.store.listIntents(run.id);
    expect(intent.status).toBe("FAILED");
  });

  it("a packet stored before the in-doubt words (options approve/reject/redirect) takes the new words only", async () => {
    const system = lossySystem({ semantics: "unsafe" });
    const { packet } = await runInDoubt(system);
    await t.db.decisionPacket.update({
      where: { id: packet.id },
      data: { packet: JSON.stringify({ ...packet.content, options: ["approve", "reject", "redirect"] }) },
    });
    await expectError(
      t.runtime.decidePacket({ packetId: packet.id, reviewer: "ops@example.com", input: { decision: "approve" } }),
      "INVALID_INPUT",
    );
    expect(
      await t.runtime.decidePacket({ packetId: packet.id, reviewer: "ops@example.com", input: { decision: "skip" } }),
    ).toMatchObject({ status: "SKIPPED" });
  });

  it("check now: the tool's lookup answers whether it happened; it decides nothing", async () => {
    const system = lossySystem({ semantics: "reconcilable" });
    const { run, packet } = await runInDoubt(system); // the lookup failed, so a person was asked
    await expectError(t.runtime.checkUnknownOutcome({ packetId: packet.id }), "CONFLICT"); // still unreachable
    system.restoreLookup();
    const check = await t.runtime.checkUnknownOutcome({ packetId: packet.id });
    expect(check).toMatchObject({
      packetId: packet.id,
      found: true,
      receipt: "rcpt-1",
      operationId: system.applied[0].operationId,
    });
    expect(await t.store.getPacket(packet.id, null)).toMatchObject({ status: "PENDING" });
    expect((await t.runtime.getRun(run.id)).status).toBe("NEEDS_ATTENTION");
    expect(system.applied).toHaveLength(1);

    const unsafe = await runInDoubt(lossySystem({ semantics: "unsafe" }));
    await expectError(t.runtime.checkUnknownOutcome({ packetId: unsafe.packet.id }), "INVALID_INPUT"); // no lookup to run
  });
});
