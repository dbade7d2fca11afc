import { describe, expect, it } from "vitest";
import { AppError } from "../../lib/runtime/errors";
import {
  FACT_AUTHORITY,
  FACT_KINDS,
  STATE_SCHEMA_VERSION,
  latestFact,
  loadState,
  type RunState,
} from "../../lib/runtime/state";
import { buildState } from "../support/contract/builders";

/** A state as v1 wrote it: facts carried a plain `source` string; no approvals, risks, journal. */
function v1State() {
  return {
    schemaVersion: 1,
    agent: { slug: "refunder", version: "0.9.0", instructionsHash: "9f2c" },
    instructions: ["Refund the order if it is eligible."],
    input: { orderId: "o-7" },
    step: 3,
    plan: [
      { id: "look-up", title: "Look up the order", status: "done" },
      { id: "refund", title: "Refund it", status: "active" },
    ],
    facts: [
      {
        key: "order",
        value: { id: "o-7", amountCents: 2400, status: "paid" },
        source: "tool",
        at: "2024-03-01T10:00:00.000Z",
      },
      { key: "eligible", value: true, source: "model", at: "2024-03-01T10:00:05.000Z" },
      { key: "approved", value: { by: "ann@example.com" }, source: "human", at: "2024-03-01T11:00:00.000Z" },
    ],
    pending: null,
    observations: [{ step: 2, kind: "tool_result", tool: "orders.get", message: "order o-7 is paid" }],
  };
}

function expectInvalidState(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("INVALID_STATE");
    expect((error as AppError).userMessage).not.toMatch(/schemaVersion|JSON/); // safe for a person
    return error as AppError;
  }
  throw new Error("expected loadState to throw INVALID_STATE");
}

describe("loadState: upgrading v2", () => {
  it("a v2 state has no turn in progress and nothing to replay", () => {
    const { turn: _turn, replay: _replay, ...v2 } = loadState(v1State());
    const state = loadState({ ...v2, schemaVersion: 2 });
    expect(state).toMatchObject({ schemaVersion: STATE_SCHEMA_VERSION, turn: null, replay: null });
  });
});

describe("loadState: upgrading v3", () => {
  it("a v3 state gets a budget without limits and a tool-call count from zero; its usage is kept", () => {
    const { budget: _budget, ...v3 } = loadState(v1State());
    const state = loadState({
      ...v3,
      schemaVersion: 3,
      usage: { modelCalls: 2, inputTokens: 20, outputTokens: 10, costUsd: 0.5 },
    });
    expect(state).toMatchObject({
      schemaVersion: 4,
      budget: { limits: {}, toolCalls: 0 },
      usage: { modelCalls: 2, inputTokens: 20, outputTokens: 10, costUsd: 0.5 },
    });
  });

  it("a state without its budget is refused at the current version (not silently filled in)", () => {
    const { budget: _budget, ...current } = loadState(v1State());
    expectInvalidState(() => loadState(current));
  });
});

describe("loadState: upgrading v1", () => {
  it("upgrades a v1 state to the current version", () => {
    expect(loadState(v1State()).schemaVersion).toBe(STATE_SCHEMA_VERSION);
  });

  it("maps each v1 source to a fact kind: tool → observation, model → inference, human → decision", () => {
    const state = loadState(v1State());
    expect(state.facts.map((f) => [f.key, f.kind])).toEqual([
      ["order", "observation"],
      ["eligible", "inference"],
      ["approved", "decision"],
    ]);
  });

  it("keeps every fact's value and time, and gives each an id", () => {
    const v1 = v1State();
    const state = loadState(v1);
    expect(state.facts.map((f) => ({ key: f.key, value: f.value, at: f.at }))).toEqual(
      v1.facts.map(({ key, value, at }) => ({ key, value, at })),
    );
    expect(new Set(state.facts.map((f) => f.id)).size).toBe(v1.facts.length);
  });

  it("keeps the rest of the run and adds empty approvals, risks and journal", () => {
    const v1 = v1State();
    const state = loadState(v1);
    expect(state).toMatchObject({
      agent: v1.agent,
      instructions: v1.instructions,
      input: v1.input,
      step: 3,
      plan: v1.plan,
      pending: null,
      observations: v1.observations,
    });
    expect(state).toMatchObject({
      approvals: [],
      risks: [],
      journal: {},
      consecutiveErrors: 0,
      usage: { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
    });
  });

  it("upgrades a v1 state stored as JSON text", () => {
    expect(loadState(JSON.stringify(v1State()))).toEqual(loadState(v1State()));
  });

  it("does not change the object it upgrades", () => {
    const v1 = v1State();
    loadState(v1);
    expect(v1).toEqual(v1State());
  });

  it("an upgraded state loads again unchanged", () => {
    const upgraded = loadState(v1State());
    expect(loadState(JSON.parse(JSON.stringify(upgraded)))).toEqual(upgraded);
  });
});

describe("loadState: the current version", () => {
  function richState(): RunState {
    return buildState({
      step: 4,
      facts: [
        {
          id: "f1",
          key: "order",
          value: { amountCents: 2400 },
          kind: "observation",
          at: "2025-01-01T12:00:00.000Z",
          step: 1,
          expiresAt: "2025-01-01T12:05:00.000Z",
          source: { tool: "orders.get", args: { orderId: "o-1" } },
        },
        {
          id: "f2",
          key: "refund",
          value: { id: "re_1" },
          kind: "receipt",
          at: "2025-01-01T12:01:00.000Z",
          step: 2,
          expiresAt: null,
          source: { receiptId: "re_1", operationId: "op_1" },
        },
      ],
      approvals: [
        {
          packetId: "pkt_1",
          step: 2,
          tool: "payments.refund",
          digest: "abc",
          decision: "approve",
          by: ["ann"],
          at: "2025-01-01T12:00:30.000Z",
          usedAt: null,
        },
      ],
      risks: [{ id: "op_1", description: "refund may have happened", level: "high" }],
      pending: { kind: "sleep", until: "2025-01-02T00:00:00.000Z" },
      observations: [{ step: 3, kind: "timer", message: "slept" }],
      journal: { "3:now:0": "2025-01-01T12:02:00.000Z" },
      output: { done: true },
    });
  }

  it("round-trips unchanged, as an object and as JSON text", () => {
    const state = richState();
    expect(loadState(state)).toEqual(state);
    expect(loadState(JSON.stringify(state))).toEqual(state);
  });

  it("round-trips a fresh initial state", () => {
    const state = buildState();
    expect(loadState(JSON.stringify(state))).toEqual(state);
  });
});

describe("loadState: malformed states", () => {
  it("rejects text that is not JSON", () => {
    expect(expectInvalidState(() => loadState("{not json")).message).toMatch(/JSON/);
  });

  it("rejects values that are not objects", () => {
    for (const raw of [null, undefined, 42, "null", '"a string"', true]) expectInvalidState(() => loadState(raw));
  });

  it("rejects unknown schema versions", () => {
    for (const schemaVersion of [0, 99, -1, 1.5, "2", undefined]) {
      const error = expectInvalidState(() => loadState({ ...buildState(), schemaVersion }));
      expect(error.message).toContain("schemaVersion");
    }
  });

  it("rejects an array", () => {
    expectInvalidState(() => loadState([buildState()]));
  });

  it("rejects a fact with an invalid kind and names the field", () => {
    const state = buildState({
      facts: [
        {
          id: "f1",
          key: "order",
          value: 1,
          kind: "rumour" as never,
          at: "2025-01-01T00:00:00.000Z",
          step: 0,
          expiresAt: null,
          source: {},
        },
      ],
    });
    const error = expectInvalidState(() => loadState(state));
    expect(Object.keys(error.fieldErrors ?? {})).toEqual(["facts.0.kind"]);
  });

  it("rejects a state missing required parts, with one field error per part", () => {
    const { plan: _plan, step: _step, ...rest } = buildState();
    const error = expectInvalidState(() => loadState(rest));
    expect(Object.keys(error.fieldErrors ?? {}).sort()).toEqual(["plan", "step"]);
  });

  it("rejects a v1 state whose upgrade does not produce a valid state", () => {
    const { agent: _agent, ...v1 } = v1State();
    const error = expectInvalidState(() => loadState(v1));
    expect(error.fieldErrors).toHaveProperty("agent");
  });
});

describe("facts", () => {
  it("FACT_AUTHORITY explains every fact kind, and only observations expire", () => {
    expect(Object.keys(FACT_AUTHORITY).sort()).toEqual([...FACT_KINDS].sort());
    for (const kind of FACT_KINDS) expect(FACT_AUTHORITY[kind].authority.length).toBeGreaterThan(10);
    expect(FACT_KINDS.filter((k) => FACT_AUTHORITY[k].expires)).toEqual(["observation"]);
  });

  it("latestFact returns the newest fact under a key", () => {
    const fact = (id: string, key: string, value: unknown) => ({
      id,
      key,
      value,
      kind: "observation" as const,
      at: "2025-01-01T00:00:00.000Z",
      step: 0,
      expiresAt: null,
      source: {},
    });
    const state = buildState({
      facts: [fact("1", "order", "old"), fact("2", "other", "x"), fact("3", "order", "new")],
    });
    expect(latestFact(state, "order")?.value).toBe("new");
    expect(latestFact(state, "missing")).toBeUndefined();
  });
});
