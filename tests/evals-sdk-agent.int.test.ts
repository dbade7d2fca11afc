import { beforeAll, describe, expect, it } from "vitest";
import { runEval, type EvalRunOutcome } from "../lib/evals/harness";
import { evalCaseSpecSchema } from "../lib/evals/spec";

// A team's own agent through the fault harness: an agent and tools defined only with the SDK
// (tests/support/eval-sdk-agent.ts — no demo agent, no built-in tool), run without faults, with a worker
// process SIGKILLed at every fault point around its credit, and with the credit's response lost after it
// applied. The harness knows where the credit lands in the world's ledger only from the tool's declaration.

const SUBJECT = "tests/support/eval-sdk-agent.ts";

const creditCase = evalCaseSpecSchema.parse({
  id: "credit-remainder",
  agent: "credit-agent",
  title: "Credits what is left of a partly refunded order, after a person approves",
  input: { orderId: "ord_1003" },
  reviewer: [{ tool: "billing.issue_credit", decision: "approve" }],
  expect: {
    status: "COMPLETED",
    output: [{ path: "output.credited", op: "eq", value: true }],
    state: [
      { path: "ledger.payments.refund", op: "eq", value: 1 },
      { path: "world.orders[ord_1003].refundedCents", op: "eq", value: 4999 },
    ],
    tools: { must: ["shop.get_order", "billing.issue_credit"], mustNot: ["payments.refund"] },
    approvals: ["billing.issue_credit"],
    never: [{ system: "mail" }],
    budgets: { steps: 10, machineMs: 60_000 },
  },
});

describe("journey evals of an agent written with the SDK", () => {
  let outcome: EvalRunOutcome;

  beforeAll(async () => {
    outcome = await runEval({
      cases: [creditCase],
      dataset: { id: null, name: "sdk-agent", version: "test" },
      faults: "crash,tool-timeout",
      subject: SUBJECT,
      db: null,
    });
  }, 600_000);

  it("runs the case under every fault its journey admits, read from what its tools declare", () => {
    expect(outcome.results.map((r) => r.fault).sort()).toEqual([
      "crash:after-call:billing.issue_credit",
      "crash:after-commit:billing.issue_credit",
      "crash:after-intent:billing.issue_credit",
      "crash:before-intent:billing.issue_credit",
      "none",
      "tool-timeout",
    ]);
    expect(outcome.agentVersions).toEqual({ "credit-agent": expect.stringMatching(/^[0-9a-f]{12}\+/) });
  });

  it("scores every trial on every dimension, and each passes: one credit, approved, never repeated", () => {
    expect(
      outcome.results.filter((r) => !r.passed).map((r) => ({ fault: r.fault, failed: r.checks.filter((c) => !c.ok) })),
    ).toEqual([]);
    for (const r of outcome.results) {
      expect(r.scores).toEqual({
        completion: 1,
        toolSelection: 1,
        stateAccuracy: 1,
        recovery: 1,
        approvalCompliance: 1,
        cost: 1,
        latency: 1,
      });
      expect(r.ledger.filter((e) => e.runId === r.runId && e.system === "payments")).toHaveLength(1);
    }
    // The crash trials compared their effects with the baseline's, by the declared entry.
    const afterCall = outcome.results.find((r) => r.fault === "crash:after-call:billing.issue_credit")!;
    expect(afterCall.checks.find((c) => c.name === "same effects as without the fault")).toMatchObject({ ok: true });
    expect(outcome.status).toBe("PASSED");
  });
});
