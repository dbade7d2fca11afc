import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { faultsFor, parseFaultSelection } from "../lib/evals/faults";
import { casesToJsonl, datasetVersion, DatasetParseError, parseCasesJsonl } from "../lib/evals/jsonl";
import { evaluateCheck, readPath } from "../lib/evals/snapshot";
import { declaredLedgerEffects, appSubject } from "../lib/evals/subject";
import type { TraceEventSummary } from "../lib/evals/types";
import { defineTool, z } from "../lib/sdk";

const text = readFileSync("evals/datasets/default.jsonl", "utf8");

describe("the default dataset", () => {
  const cases = parseCasesJsonl(text);

  it("has at least 30 cases over the three agents, with the failure stories the issue names", () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(new Set(cases.map((c) => c.agent))).toEqual(new Set(["refund-agent", "deploy-agent", "outreach-agent"]));
    const tags = new Set(cases.flatMap((c) => c.tags));
    for (const tag of [
      "declined",
      "rejection",
      "redirect",
      "expiry",
      "timeout",
      "missing-data",
      "weak-evidence",
      "world-changed",
      "callbacks",
    ])
      expect(tags).toContain(tag);
  });

  it("round-trips through JSONL with the same version", () => {
    const again = parseCasesJsonl(casesToJsonl(cases));
    expect(again).toEqual(cases);
    expect(datasetVersion(again)).toBe(datasetVersion(cases));
    expect(datasetVersion(cases.slice(1))).not.toBe(datasetVersion(cases));
  });
});

describe("parseCasesJsonl", () => {
  it("names the lines that are wrong", () => {
    const bad =
      '// a comment\n{"id":"a","agent":"refund-agent","title":"t","input":{},"expect":{"status":"COMPLETED"}}\nnot json\n{"id":"A B","agent":"x","title":"t","input":{},"expect":{"status":"NOPE"}}\n';
    try {
      parseCasesJsonl(bad);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DatasetParseError);
      expect((error as DatasetParseError).errors.map((e) => e.line)).toEqual([3, 4]);
    }
  });
});

describe("checks over a snapshot", () => {
  const snapshot = {
    output: { refunded: true, sources: ["doc_a"] },
    ledger: { payments: { refund: 1 } },
    facts: { "signal:deploy.finished": { kind: "receipt" } },
    events: {},
  };
  it("reads dot paths, bracketed keys and array indexes", () => {
    expect(readPath(snapshot, "facts[signal:deploy.finished].kind")).toBe("receipt");
    expect(readPath(snapshot, "output.sources[0]")).toBe("doc_a");
    expect(readPath(snapshot, "output.missing.deeper")).toBeUndefined();
  });
  it("evaluates each operator; a missing count is zero", () => {
    expect(evaluateCheck(snapshot, { path: "output.refunded", op: "eq", value: true }).ok).toBe(true);
    expect(evaluateCheck(snapshot, { path: "ledger.payments.refund", op: "lte", value: 1 }).ok).toBe(true);
    expect(evaluateCheck(snapshot, { path: "events[gate.stale]", op: "gte", value: 1 }).ok).toBe(false);
    expect(evaluateCheck(snapshot, { path: "events[gate.stale]", op: "eq", value: 0 }).ok).toBe(false);
    expect(evaluateCheck(snapshot, { path: "events[gate.stale]", op: "lt", value: 1 }).ok).toBe(true);
    expect(evaluateCheck(snapshot, { path: "output.sources", op: "contains", value: "doc_a" }).ok).toBe(true);
    expect(evaluateCheck(snapshot, { path: "output.refunded", op: "in", value: [false] }).ok).toBe(false);
    expect(evaluateCheck(snapshot, { path: "output.nothing", op: "absent" }).ok).toBe(true);
  });
});

describe("fault schedules", () => {
  const [refundCase] = parseCasesJsonl(text).filter((c) => c.id === "refund-large-approved");
  const event = (type: string, data: Record<string, unknown>): TraceEventSummary => ({
    seq: 0,
    step: 0,
    type,
    at: "",
    data,
  });
  const baseline = [
    event("gate.decided", { tool: "payments.refund", decision: "approve" }),
    event("effect.intent", { tool: "payments.refund" }),
    event("effect.intent", { tool: "mail.send" }),
  ];
  it("--faults all: a kill at every fault point around every effect the journey made, and the waits' faults", () => {
    const faults = faultsFor(
      refundCase,
      baseline,
      parseFaultSelection("all").kinds,
      declaredLedgerEffects(appSubject),
    ).map((f) => f.id);
    expect(faults.filter((f) => f.startsWith("crash:"))).toHaveLength(8);
    expect(faults).toEqual(
      expect.arrayContaining([
        "crash:before-intent:payments.refund",
        "crash:after-commit:mail.send",
        "permission-revoked",
        "permission-narrowed",
        "world-changed",
        "tool-timeout",
      ]),
    );
    expect(faults).not.toContain("callback-duplicate"); // the journey never waits for a callback
  });
  it("rejects unknown fault kinds", () => {
    expect(() => parseFaultSelection("crash,meteor")).toThrow(/meteor/);
    expect(parseFaultSelection("none").kinds).toEqual([]);
  });
});

describe("what tools declare about the world's ledger", () => {
  it("the built-in tools that change something declare the entry their effect leaves; reads declare none", () => {
    expect(declaredLedgerEffects(appSubject)).toEqual({
      "payments.refund": { system: "payments", action: "refund" },
      "mail.send": { system: "mail", action: "send" },
      "drafts.create": { system: "drafts", action: "create" },
      "deploys.run_migration": { system: "deploys", action: "migrate" },
    });
  });
  it("defineTool keeps the declaration, and refuses one on a pure read or in the wrong shape", () => {
    const base = { description: "d", input: z.object({ id: z.string() }), impact: () => "i", run: async () => ({}) };
    expect(
      defineTool({
        ...base,
        name: "crm.update",
        capability: "execute",
        semantics: "idempotent",
        ledger: { system: "crm", action: "update" },
      }).ledger,
    ).toEqual({ system: "crm", action: "update" });
    expect(() =>
      defineTool({
        ...base,
        name: "crm.get",
        capability: "read",
        semantics: "pure-read",
        ledger: { system: "crm", action: "get" },
      }),
    ).toThrow(/pure-read tool changes nothing/);
    expect(() =>
      defineTool({
        ...base,
        name: "crm.update",
        capability: "execute",
        semantics: "idempotent",
        ledger: { system: "CRM", action: "" },
      }),
    ).toThrow(/lowercase words/);
  });
});
