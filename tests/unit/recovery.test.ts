import { describe, expect, it } from "vitest";
import { buildRecoveryView } from "../../lib/runtime/recovery";
import { buildIntent, buildPacket, buildRun } from "../support/contract/builders";

const NOW = new Date("2025-01-01T12:10:00.000Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);

const ops = (items: Array<{ operationId: string }>) => items.map((i) => i.operationId);
const actions = (view: ReturnType<typeof buildRecoveryView>) => view.safeNext.map((s) => s.action);

describe("buildRecoveryView", () => {
  it("a succeeded intent definitely happened, with its result", () => {
    const run = buildRun();
    const intent = buildIntent({
      runId: run.id,
      status: "SUCCEEDED",
      result: { refundId: "re_1" },
      completedAt: later(-1000),
    });
    const view = buildRecoveryView(run, [intent], [], NOW);
    expect(view.definitelyHappened).toEqual([
      expect.objectContaining({
        operationId: intent.id,
        tool: intent.tool,
        result: { refundId: "re_1" },
        at: later(-1000).toISOString(),
      }),
    ]);
    expect(view.mayHaveHappened).toEqual([]);
    expect(view.definitelyNotHappened).toEqual([]);
    expect(actions(view)).toEqual(["resume"]);
  });

  it("a resolved intent definitely happened", () => {
    const intent = buildIntent({ status: "RESOLVED" });
    expect(ops(buildRecoveryView(buildRun(), [intent], [], NOW).definitelyHappened)).toEqual([intent.id]);
  });

  it("a failed intent definitely did not happen", () => {
    const intent = buildIntent({ status: "FAILED", result: { error: "card declined" } });
    const view = buildRecoveryView(buildRun(), [intent], [], NOW);
    expect(ops(view.definitelyNotHappened)).toEqual([intent.id]);
    expect(view.definitelyHappened).toEqual([]);
    expect(view.mayHaveHappened).toEqual([]);
  });

  it("an unknown outcome may have happened", () => {
    const intent = buildIntent({ status: "UNKNOWN", semantics: "unsafe" });
    const view = buildRecoveryView(buildRun({ status: "NEEDS_ATTENTION" }), [intent], [], NOW);
    expect(ops(view.mayHaveHappened)).toEqual([intent.id]);
    expect(view.mayHaveHappened[0].why).toMatch(/unknown/);
  });

  describe("a pending intent with no live lease may have happened", () => {
    it.each([
      ["idempotent", "retry_with_same_key"],
      ["reconcilable", "reconcile"],
      ["unsafe", "ask_human"],
    ] as const)("%s → %s", (semantics, action) => {
      const intent = buildIntent({ semantics, status: "PENDING" });
      const view = buildRecoveryView(buildRun({ leaseOwner: null }), [intent], [], NOW);
      expect(ops(view.mayHaveHappened)).toEqual([intent.id]);
      expect(actions(view)).toEqual([action]);
      expect(view.safeNext[0].description).toContain(intent.tool);
    });

    it("the retry names the same idempotency key", () => {
      const intent = buildIntent({ semantics: "idempotent" });
      expect(buildRecoveryView(buildRun(), [intent], [], NOW).safeNext[0].description).toContain(intent.id);
    });

    it("an expired lease counts as no lease", () => {
      const run = buildRun({ leaseOwner: "worker-a", leaseEpoch: 3, leaseExpiresAt: later(-1) });
      expect(actions(buildRecoveryView(run, [buildIntent({ semantics: "reconcilable" })], [], NOW))).toEqual([
        "reconcile",
      ]);
    });

    it("a lease that expires exactly now is not live", () => {
      const run = buildRun({ leaseOwner: "worker-a", leaseEpoch: 3, leaseExpiresAt: NOW });
      expect(actions(buildRecoveryView(run, [buildIntent({ semantics: "idempotent" })], [], NOW))).toEqual([
        "retry_with_same_key",
      ]);
    });
  });

  it("a pending intent under a live lease: wait for the worker", () => {
    const run = buildRun({ leaseOwner: "worker-a", leaseEpoch: 2, leaseExpiresAt: later(30_000) });
    const intent = buildIntent({ runId: run.id, semantics: "unsafe" });
    const view = buildRecoveryView(run, [intent], [], NOW);
    expect(ops(view.mayHaveHappened)).toEqual([intent.id]);
    expect(actions(view)).toEqual(["wait"]);
    expect(view.safeNext[0].description).toContain("worker-a");
  });

  it("a pending packet asks for a decision", () => {
    const run = buildRun({ status: "WAITING_APPROVAL" });
    const packet = buildPacket({ runId: run.id });
    const decided = buildPacket({ runId: run.id, status: "APPROVED" });
    const view = buildRecoveryView(run, [], [packet, decided], NOW);
    expect(actions(view)).toEqual(["decide_packet"]);
    expect(view.safeNext[0].description).toContain(packet.id);
    expect(view.safeNext[0].description).toContain(packet.content.impact);
  });

  it("lists a next action for every doubtful intent and every pending packet", () => {
    const run = buildRun({ status: "NEEDS_ATTENTION" });
    const intents = [
      buildIntent({ semantics: "idempotent" }),
      buildIntent({ semantics: "unsafe" }),
      buildIntent({ status: "SUCCEEDED" }),
    ];
    const view = buildRecoveryView(run, intents, [buildPacket({ kind: "UNKNOWN_OUTCOME" })], NOW);
    expect(actions(view)).toEqual(["retry_with_same_key", "ask_human", "decide_packet"]);
  });

  it.each(["COMPLETED", "FAILED", "CANCELLED"] as const)(
    "a %s run: nothing next, but what may have happened is still listed",
    (status) => {
      const pending = buildIntent({ semantics: "unsafe" });
      const unknown = buildIntent({ status: "UNKNOWN" });
      const done = buildIntent({ status: "SUCCEEDED" });
      const view = buildRecoveryView(buildRun({ status }), [pending, unknown, done], [buildPacket()], NOW);
      expect(actions(view)).toEqual(["none"]);
      expect(ops(view.mayHaveHappened)).toEqual([pending.id, unknown.id]);
      expect(ops(view.definitelyHappened)).toEqual([done.id]);
    },
  );

  it("a FAILED run with nothing in doubt: an operator may retry it; with a call in doubt, not before a person settles it", () => {
    const clean = buildRecoveryView(buildRun({ status: "FAILED" }), [buildIntent({ status: "SUCCEEDED" })], [], NOW);
    expect(actions(clean)).toEqual(["retry_run"]);
    expect(clean.safeNext[0].description).toContain("not repeated");
    const doubtful = buildRecoveryView(buildRun({ status: "FAILED" }), [buildIntent({ semantics: "unsafe" })], [], NOW);
    expect(actions(doubtful)).toEqual(["none"]);
    expect(doubtful.safeNext[0].description).toContain("settle what may have happened");
  });

  it.each([
    ["WAITING_EVENT", { waitingFor: "deploy.finished" }, "wait", "deploy.finished"],
    ["SLEEPING", { wakeAt: later(60_000) }, "wait", later(60_000).toISOString()],
    ["NEEDS_ATTENTION", {}, "ask_human", "person"],
    ["QUEUED", {}, "resume", "checkpoint"],
  ] as const)("with nothing in doubt, a %s run → %s", (status, extra, action, mention) => {
    const view = buildRecoveryView(buildRun({ status, ...extra }), [], [], NOW);
    expect(actions(view)).toEqual([action]);
    expect(view.safeNext[0].description).toContain(mention);
  });

  it("reports the run it describes", () => {
    const run = buildRun({ status: "SLEEPING" });
    expect(buildRecoveryView(run, [], [], NOW)).toMatchObject({ runId: run.id, status: "SLEEPING" });
  });
});
