import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { runEval, type EvalRunOutcome } from "../lib/evals/harness";
import { parseCasesJsonl } from "../lib/evals/jsonl";
import { importDataset } from "../lib/commands/import-dataset";
import { compareEvalRuns, getEvalRun } from "../lib/queries/eval-records";
import { providers, uid } from "./support/runtime";

// The evals can fail: the same cases, under the same faults (a worker process SIGKILLed at every fault
// point around the refund and the email, and a refund whose response is lost after it applied), pass
// with the real engine and fail on recovery with an engine that has no stable idempotency keys.

const CASES = ["refund-small-auto"];
const FAULTS = "crash,tool-timeout";
const [, sqliteUrl] = providers()[0];

describe("journey evals catch a broken engine", () => {
  let db: Db;
  let dataset: { id: string; name: string; version: string };
  let intact: EvalRunOutcome;
  let broken: EvalRunOutcome;
  const text = readFileSync("evals/datasets/default.jsonl", "utf8");
  const cases = parseCasesJsonl(text);

  beforeAll(async () => {
    db = createDb(sqliteUrl);
    const stored = await importDataset({ db }, { jsonl: text, name: uid("evals-default"), by: "test" });
    dataset = { id: stored.id, name: stored.name, version: stored.version };
    intact = await runEval({ cases, dataset, faults: FAULTS, caseFilter: CASES, db });
    broken = await runEval({ cases, dataset, faults: FAULTS, caseFilter: CASES, db, breakIdempotency: true });
  }, 600_000);
  afterAll(async () => {
    await db.$disconnect();
  });

  it("passes with the real engine: every crash point and the lost response recover without a duplicate", () => {
    expect(intact.results.map((r) => r.fault).sort()).toEqual([
      "crash:after-call:mail.send",
      "crash:after-call:payments.refund",
      "crash:after-commit:mail.send",
      "crash:after-commit:payments.refund",
      "crash:after-intent:mail.send",
      "crash:after-intent:payments.refund",
      "crash:before-intent:mail.send",
      "crash:before-intent:payments.refund",
      "none",
      "tool-timeout",
    ]);
    expect(
      intact.results.filter((r) => !r.passed).map((r) => ({ fault: r.fault, failed: r.checks.filter((c) => !c.ok) })),
    ).toEqual([]);
    expect(intact.scores.recovery).toBe(1);
    expect(intact.status).toBe("PASSED");
    // Each crash trial really killed a process and another one finished the run.
    const crashed = intact.results.filter((r) => r.fault.startsWith("crash:"));
    for (const r of crashed)
      expect(r.ledger.filter((e) => e.runId === r.runId && e.system === "payments")).toHaveLength(1);
  });

  it("fails on recovery without stable idempotency keys, and says which effects were duplicated", () => {
    expect(broken.status).toBe("FAILED");
    expect(broken.scores.recovery).toBeLessThan(1);
    expect(broken.failures.some((f) => f.startsWith("recovery"))).toBe(true);
    // The lost refund response is retried under a new key: the provider sees an unknown operation.
    const timeout = broken.results.find((r) => r.fault === "tool-timeout")!;
    expect(timeout.passed).toBe(false);
    expect(timeout.scores.recovery).toBe(0);
    expect(timeout.checks.find((c) => c.name === "every effect has its intent")).toMatchObject({ ok: false });
    // A crash after the email was sent, resumed by a fresh process: the lookup misses, a second email goes out.
    const afterCall = broken.results.find((r) => r.fault === "crash:after-call:mail.send")!;
    expect(afterCall.scores.recovery).toBe(0);
    expect(afterCall.ledger.filter((e) => e.runId === afterCall.runId && e.system === "mail")).toHaveLength(2);
    expect(afterCall.checks.find((c) => c.name === "same effects as without the fault")).toMatchObject({
      ok: false,
      detail: expect.stringContaining("mail.send: 2 (without the fault: 1)"),
    });
  });

  it("stores both eval runs; compareEvalRuns lists the trials that broke", async () => {
    const stored = await getEvalRun(broken.id!, db);
    expect(stored).toMatchObject({
      status: "FAILED",
      datasetVersion: dataset.version,
      trialCount: broken.results.length,
      policy: "scripted",
    });
    expect(stored.results.find((r) => r.fault === "tool-timeout")).toMatchObject({
      passed: false,
      runId: expect.stringMatching(/^run_/),
    });
    expect(stored.results[0].trace.length).toBeGreaterThan(5);
    const diff = await compareEvalRuns(intact.id!, broken.id!, db);
    expect(diff.sameDataset).toBe(true);
    expect(diff.changed.filter((c) => c.change === "broke").map((c) => c.fault)).toEqual(
      expect.arrayContaining(["tool-timeout", "crash:after-call:mail.send"]),
    );
    expect(diff.scoreDeltas.find((d) => d.dimension === "recovery")).toMatchObject({ before: 1 });
  });
});
