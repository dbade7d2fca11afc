import { describe, expect, it } from "vitest";
import { initialState, type Fact, type Observation, type RunState } from "@/lib/runtime";
import {
  callUnlessFailed,
  completeWith,
  definePlan,
  lastStepOf,
  latestFact,
  latestRedirect,
  outcomeOf,
  planWith,
  readRun,
  SdkDefinitionError,
} from "@/lib/sdk";

// The SDK's plan and run-reading helpers: definePlan is the plan literal and planWith in one, and readRun's
// methods answer what the free helpers answer for the same state.

const fact = (key: string, step: number): Fact => ({
  id: `f${step}`,
  key,
  value: { step },
  kind: "observation",
  at: "2026-01-01T00:00:00.000Z",
  step,
  expiresAt: null,
  source: {},
});
const observation = (step: number, kind: Observation["kind"], tool?: string): Observation => ({
  step,
  kind,
  tool,
  message: `${kind} at ${step}`,
});

function runState(plan: RunState["plan"]): RunState {
  const state = initialState({
    agent: { slug: "test-agent", version: "1", instructionsHash: "h" },
    instructions: "Do the thing.",
    input: {},
    plan,
  });
  return {
    ...state,
    instructions: [...state.instructions, "offer store credit instead"],
    facts: [fact("order", 0), fact("history", 1), fact("order", 3)],
    observations: [observation(2, "redirected", "payments.refund"), observation(4, "tool_error", "orders.get")],
  };
}

describe("definePlan", () => {
  const plan = definePlan({ read: "Read the order", decide: "Decide", notify: "Email the customer" });

  it("lists the steps in the order written, pending, as defineAgent takes them", () => {
    expect(plan.steps).toEqual([
      { id: "read", title: "Read the order", status: "pending" },
      { id: "decide", title: "Decide", status: "pending" },
      { id: "notify", title: "Email the customer", status: "pending" },
    ]);
  });

  it("gives the plan with the statuses set, the steps not named pending, as planWith does", () => {
    expect(plan({ read: "done", decide: "active" })).toEqual(planWith(plan.steps, { read: "done", decide: "active" }));
    expect(plan({ read: "done", decide: "active" }).map((s) => s.status)).toEqual(["done", "active", "pending"]);
    // @ts-expect-error a step the plan does not have
    plan({ send: "done" });
  });

  it("refuses an id that reads as a number (an object would list it first)", () => {
    expect(() => definePlan({ first: "First", "2": "Second" })).toThrow(SdkDefinitionError);
  });
});

describe("readRun", () => {
  const plan = definePlan({ read: "Read the order", notify: "Email the customer" });
  const state = runState(plan.steps);
  const run = readRun(state);

  it("reads the facts and observations as the free helpers do", () => {
    expect(run.state).toBe(state);
    expect(run.fact("order")).toBe(latestFact(state, "order"));
    expect(run.fact("order")?.step).toBe(3);
    expect(run.fact("missing")).toBeUndefined();
    expect(run.lastStep("redirected", "payments.refund")).toBe(lastStepOf(state, "redirected", "payments.refund"));
    expect(run.lastStep("tool_error")).toBe(4);
    expect(run.lastStep("stale")).toBe(-1);
    expect(run.outcome("orders.get", 3)).toBe(outcomeOf(state, "orders.get", 3));
    expect(run.outcome("orders.get", 4)).toBeUndefined();
    expect(run.redirect()).toBe(latestRedirect(state));
    expect(run.redirect()).toBe("offer store credit instead");
  });

  it("decides as the free helpers do", () => {
    const call = { tool: "orders.get", args: { orderId: "ord_1" }, resultKey: "order" };
    expect(run.callUnlessFailed(3, "Could not read the order", call)).toEqual(
      callUnlessFailed(state, 3, "Could not read the order", call),
    );
    expect(run.callUnlessFailed(3, "Could not read the order", call)).toEqual({
      kind: "fail",
      reason: "Could not read the order: tool_error at 4",
    });
    expect(run.callUnlessFailed(3, "Could not read the order", call, () => false)).toMatchObject({ kind: "call" });
    const done = plan({ read: "done", notify: "done" });
    expect(run.complete(done, { ok: true })).toEqual(completeWith(state, done, { ok: true }));
    expect(readRun({ ...state, plan: done }).complete(done, { ok: true })).toEqual({
      kind: "complete",
      output: { ok: true },
    });
  });
});
