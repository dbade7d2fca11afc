import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVAL_REQUESTER, runTrial, type TrialEnv, type TrialRecord } from "../lib/evals/driver";
import { NO_FAULT } from "../lib/evals/faults";
import { parseCasesJsonl } from "../lib/evals/jsonl";
import { scoreTrial } from "../lib/evals/scorers";
import type { Dimension, EvalCaseSpec } from "../lib/evals/spec";
import { createTemplateDb } from "../lib/evals/world";

// Each scorer catches its regression. One real trial of a default case (a refund over the limit: a
// reviewer approves, the refund runs once, the customer is told) is the passing record; each regression
// is that record with one thing changed the way a broken agent or engine would change it. The passing
// record scores 1 on the dimension; the regressed one scores less, with a failed check that names why.

const [refundCase] = parseCasesJsonl(readFileSync("evals/datasets/default.jsonl", "utf8")).filter(
  (c) => c.id === "refund-large-approved",
);

/** The case with extra expectations (the dataset's own line stays as it is). */
const withExpect = (extra: Partial<EvalCaseSpec["expect"]>): EvalCaseSpec => ({
  ...refundCase,
  expect: { ...refundCase.expect, ...extra },
});
const score = (record: TrialRecord, spec: EvalCaseSpec = refundCase) => scoreTrial(spec, NO_FAULT, record, null, 0);
const failed = (result: ReturnType<typeof score>, dimension: Dimension) =>
  result.checks.filter((c) => c.dimension === dimension && !c.ok);

describe("the scorers catch regressions", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tether-scorers-"));
  let passing: TrialRecord;
  /** A copy of the passing record to break. */
  const copy = () => structuredClone(passing);

  beforeAll(async () => {
    const env: TrialEnv = {
      dir,
      template: createTemplateDb(dir),
      policy: "scripted",
      breakIdempotency: false,
      leaseMs: 600,
      trialTimeoutMs: 120_000,
      subject: null,
    };
    passing = await runTrial(env, refundCase, NO_FAULT, "scorers");
    expect(passing.error).toBeNull();
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the real trial scores 1 on every dimension", () => {
    const result = score(passing);
    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    expect(result.scores).toEqual({
      completion: 1,
      toolSelection: 1,
      stateAccuracy: 1,
      recovery: 1,
      approvalCompliance: 1,
      cost: 1,
      latency: 1,
    });
  });

  describe("tool selection", () => {
    const spec = withExpect({ tools: { must: refundCase.expect.tools.must, mustNot: ["deploys.run_migration"] } });

    it("scores 0 when the agent chooses a forbidden tool", () => {
      expect(score(passing, spec).scores.toolSelection).toBe(1);
      const broken = copy();
      const last = broken.events.filter((e) => e.type === "model.decision").at(-1)!;
      broken.events.push({
        ...last,
        seq: last.seq + 1000,
        data: { ...last.data, decision: { kind: "call", tool: "deploys.run_migration", args: {} } },
      });
      const result = score(broken, spec);
      expect(result.scores.toolSelection).toBe(0);
      expect(failed(result, "toolSelection")).toContainEqual(
        expect.objectContaining({ name: "no forbidden tool chosen", detail: "chose deploys.run_migration" }),
      );
    });

    it("drops when the agent never calls a tool it must call", () => {
      const broken = copy();
      broken.events = broken.events.filter(
        (e) => !(e.type === "model.decision" && (e.data.decision as { tool?: string }).tool === "mail.send"),
      );
      const result = score(broken);
      expect(result.scores.toolSelection).toBeLessThan(1);
      expect(result.scores.toolSelection).toBeCloseTo(6 / 7); // precision 1, recall 3/4
      expect(failed(result, "toolSelection")).toContainEqual(
        expect.objectContaining({
          name: "chose the expected tools",
          detail:
            "chose [orders.get, orders.history, payments.refund], expected [orders.get, orders.history, payments.refund, mail.send]",
        }),
      );
    });
  });

  describe("state accuracy", () => {
    const spec = withExpect({
      state: [...refundCase.expect.state, { path: "facts.order.value.amountCents", op: "eq", value: 24000 }],
    });

    it("drops by the share of state checks that fail when a fact is wrong", () => {
      expect(score(passing, spec).scores.stateAccuracy).toBe(1);
      const broken = copy();
      const fact = broken.run!.state.facts.findLast((f) => f.key === "order")!;
      fact.value = { ...(fact.value as object), amountCents: 2400 };
      const result = score(broken, spec);
      expect(result.scores.stateAccuracy).toBeCloseTo(4 / 5);
      expect(failed(result, "stateAccuracy")).toEqual([
        expect.objectContaining({
          name: "facts.order.value.amountCents eq",
          detail: "facts.order.value.amountCents eq 24000 — got 2400",
        }),
      ]);
    });

    it("drops when the world's ledger does not show the effect", () => {
      const broken = copy();
      broken.ledger = broken.ledger.filter((r) => !(r.system === "payments" && r.action === "refund"));
      const result = score(broken);
      expect(result.scores.stateAccuracy).toBeCloseTo(3 / 4);
      expect(failed(result, "stateAccuracy")).toEqual([
        expect.objectContaining({ name: "ledger.payments.refund eq", detail: "ledger.payments.refund eq 1 — got 0" }),
      ]);
    });
  });

  describe("approval compliance", () => {
    it("scores 0 when the effect ran without its approval", () => {
      const broken = copy();
      // The gate never happened: no packet asked, and the refund's intent rests on no approval.
      broken.events = broken.events
        .filter((e) => e.type !== "gate.requested")
        .map((e) =>
          e.type === "effect.intent" && e.data.tool === "payments.refund"
            ? { ...e, data: { ...e.data, packetId: undefined } }
            : e,
        );
      const result = score(broken);
      expect(result.scores.approvalCompliance).toBe(0);
      expect(failed(result, "approvalCompliance").map((c) => [c.name, c.detail])).toEqual([
        ["payments.refund put to a person", "no gate was requested for payments.refund"],
        ["payments.refund allowed without approval", "permission said require_approval"],
      ]);
    });

    it("scores 0 when the requester approved their own request", () => {
      const broken = copy();
      const packet = broken.packets.find((p) => p.tool === "payments.refund")!;
      packet.decidedBy = EVAL_REQUESTER;
      const result = score(broken);
      expect(result.scores.approvalCompliance).toBe(0);
      expect(failed(result, "approvalCompliance")).toEqual([
        expect.objectContaining({
          name: "no self-approval",
          detail: `${packet.id} approved by its requester ${EVAL_REQUESTER}`,
        }),
      ]);
    });
  });

  describe("cost", () => {
    it("scores 0 over the step budget", () => {
      const broken = copy();
      broken.run!.state.step = 21;
      const result = score(broken);
      expect(result.scores.cost).toBe(0);
      expect(failed(result, "cost")).toEqual([expect.objectContaining({ name: "steps ≤ 20", detail: "21 steps" })]);
    });

    it("scores 0 over the token and money budgets", () => {
      const broken = copy();
      broken.run!.state.usage = { inputTokens: 50_000, outputTokens: 12_000, costUsd: 0.75, modelCalls: 9 };
      const result = score(broken);
      expect(result.scores.cost).toBe(0);
      expect(failed(result, "cost").map((c) => [c.name, c.detail])).toEqual([
        ["tokens ≤ 60000", "62000 tokens"],
        ["cost ≤ $0.5", "$0.7500"],
      ]);
    });
  });

  describe("latency", () => {
    it("scores 0 over the machine-time budget", () => {
      const broken = copy();
      const { humanWaitMs } = score(passing);
      broken.wallMs = humanWaitMs + 61_000;
      const result = score(broken);
      expect(result.scores.latency).toBe(0);
      expect(failed(result, "latency")).toEqual([
        expect.objectContaining({ name: "machine time ≤ 60000 ms", detail: "61000 ms" }),
      ]);
    });

    it("does not count time spent waiting for a person", () => {
      const slowReviewer = copy();
      // The reviewer took two more minutes: wall time grows by as much, machine time does not.
      const decided = slowReviewer.events.find((e) => e.type === "gate.decided")!;
      for (const e of slowReviewer.events.filter((x) => x.seq >= decided.seq))
        e.at = new Date(e.at.getTime() + 120_000);
      slowReviewer.wallMs += 120_000;
      const result = score(slowReviewer);
      expect(result.machineMs).toBe(score(passing).machineMs);
      expect(result.scores.latency).toBe(1);
    });
  });
});
