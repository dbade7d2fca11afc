import { importDataset } from "../lib/commands/import-dataset";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import {
  compareEvalRuns,
  exportDatasetJsonl,
  findDatasets,
  findEvalRuns,
  getDataset,
  getEvalRun,
  scoreHistory,
} from "../lib/queries/eval-records";
import { createEvalRun, finishEvalRun, saveTrialResult } from "../lib/evals/records";
import { DEFAULT_THRESHOLDS, type Scores } from "../lib/evals/spec";
import type { TrialResult } from "../lib/evals/types";
import { aggregate } from "../lib/evals/harness";
import { parseCasesJsonl } from "../lib/evals/jsonl";
import { providers, uid } from "./support/runtime";

// The storage API the console's Evals pages are built on, on SQLite and Postgres.

const scores = (over: Partial<Scores> = {}): Scores => ({
  completion: 1,
  toolSelection: 1,
  stateAccuracy: 1,
  recovery: 1,
  approvalCompliance: 1,
  cost: 1,
  latency: 1,
  ...over,
});
const buildResult = (over: Partial<TrialResult>): TrialResult => ({
  caseId: "c1",
  agent: "refund-agent",
  fault: "none",
  passed: true,
  scores: scores(),
  checks: [],
  runId: "run_x",
  runStatus: "COMPLETED",
  trace: [{ seq: 1, step: 0, type: "run.created", at: new Date().toISOString(), data: {} }],
  ledger: [],
  output: { ok: true },
  tokens: 0,
  costUsd: 0,
  wallMs: 100,
  humanWaitMs: 10,
  machineMs: 90,
  error: null,
  position: 0,
  ...over,
});

describe.each(providers())("eval storage [%s]", (_provider, url) => {
  let db: Db;
  const name = uid("ds");
  const text = readFileSync("evals/datasets/default.jsonl", "utf8");
  beforeAll(() => {
    db = createDb(url);
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  async function storeRun(datasetId: string, version: string, results: TrialResult[]) {
    const id = await createEvalRun(db, {
      datasetId,
      datasetName: name,
      datasetVersion: version,
      codeVersion: "abc",
      agentVersions: { "refund-agent": "1" },
      policy: "scripted",
      faults: "all",
      caseFilter: null,
      thresholds: DEFAULT_THRESHOLDS,
    });
    for (const r of results) await saveTrialResult(db, id, r);
    const agg = aggregate(results, 1);
    await finishEvalRun(db, id, {
      status: results.every((r) => r.passed) ? "PASSED" : "FAILED",
      scores: agg,
      failures: [],
      caseCount: 1,
      trialCount: results.length,
      passedCount: agg.figures.passed,
      durationMs: 1234,
      reportPath: null,
    });
    return id;
  }

  it("imports a dataset, re-imports it as a new version, exports it back", async () => {
    const first = await importDataset({ db }, { jsonl: text, name, description: "the default cases", by: "test" });
    expect(first.caseCount).toBeGreaterThanOrEqual(30);
    expect(first.cases[0].spec.id).toBe(first.cases[0].caseId);
    const fewer = text.split("\n").slice(1).join("\n");
    const second = await importDataset({ db }, { jsonl: fewer, name, by: "test" });
    expect(second.id).toBe(first.id);
    expect(second.version).not.toBe(first.version);
    expect(second.caseCount).toBe(first.caseCount - 1);
    expect(parseCasesJsonl(await exportDatasetJsonl(name, db))).toEqual(parseCasesJsonl(fewer));
    expect((await findDatasets(db)).find((d) => d.name === name)).toMatchObject({
      caseCount: second.caseCount,
      agents: ["deploy-agent", "outreach-agent", "refund-agent"],
    });
    await expect(getDataset(uid("nope"), db)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(importDataset({ db }, { jsonl: "{nope", name: uid("bad"), by: "test" })).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
  });

  it("stores eval runs with per-trial results; lists, charts and compares them", async () => {
    const dataset = await getDataset(name, db);
    const a = await storeRun(dataset.id, dataset.version, [
      buildResult({}),
      buildResult({ fault: "tool-timeout", position: 1 }),
    ]);
    const b = await storeRun(dataset.id, dataset.version, [
      buildResult({}),
      buildResult({ fault: "tool-timeout", position: 1, passed: false, scores: scores({ recovery: 0 }) }),
    ]);
    const run = await getEvalRun(b, db);
    expect(run).toMatchObject({
      status: "FAILED",
      trialCount: 2,
      datasetName: name,
      agentVersions: { "refund-agent": "1" },
    });
    expect(run.results.map((r) => r.fault)).toEqual(["none", "tool-timeout"]);
    expect(run.results[1]).toMatchObject({
      passed: false,
      runId: "run_x",
      scores: { recovery: 0 },
      output: { ok: true },
    });
    expect(run.scores.recovery).toBe(0.5);
    const { runs } = await findEvalRuns({ datasetName: name }, db);
    expect(runs.map((r) => r.id)).toEqual([b, a]);
    const history = await scoreHistory({ datasetName: name }, db);
    expect(history.map((p) => [p.evalRunId, p.scores.recovery])).toEqual([
      [a, 1],
      [b, 0.5],
    ]);
    const diff = await compareEvalRuns(a, b, db);
    expect(diff.changed).toEqual([
      expect.objectContaining({
        caseId: "c1",
        fault: "tool-timeout",
        change: "broke",
        deltas: [{ dimension: "recovery", before: 1, after: 0 }],
      }),
    ]);
    expect(diff.unchanged).toBe(1);
    expect(diff.sameDataset && diff.sameCode).toBe(true);
  });
});
