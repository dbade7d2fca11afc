import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Db } from "@/lib/db";
import { sha256 } from "@/lib/runtime/canonical";
import { runTrial, type TrialEnv } from "./driver";
import type { PolicyKind } from "./eval-runtime";
import { describePolicy } from "./eval-runtime";
import { NO_FAULT, faultsFor, parseFaultSelection, type FaultSpec } from "./faults";
import { createEvalRun, finishEvalRun, saveTrialResult } from "./records";
import { scoreTrial } from "./scorers";
import { DEFAULT_THRESHOLDS, DIMENSIONS, type Dimension, type EvalCaseSpec } from "./spec";
import { declaredLedgerEffects, loadSubject, type EvalSubject } from "./subject";
import type { EvalFigures, EvalRunStatus, EvalScores, TrialResult } from "./types";
import { createWorkerPool, type WorkerPool, type WorkerProcess } from "./worker-pool";
import { createCrashWave, type CrashWave } from "./workers";
import { createTemplateDb } from "./world";

// The harness: every case without faults first (its baseline journey decides which faults apply and
// what "the same effects" means), then every case under every applicable fault. Trials run a few at
// a time, each in its own database and sandbox world; results are stored as they finish.

export type RunEvalOptions = {
  cases: EvalCaseSpec[];
  dataset: { id: string | null; name: string; version: string };
  /** "none" | "all" | comma-separated fault kinds */
  faults: string;
  caseFilter?: string[];
  policy?: PolicyKind;
  /** The module of the agents and tools under test (its default export is an EvalSubject, see subject.ts);
   *  unset: the demo agents with the built-in tools. */
  subject?: string;
  /** Tests: a runtime without stable idempotency keys, to prove the evals catch it. */
  breakIdempotency?: boolean;
  thresholds?: Partial<Record<Dimension, number>>;
  /** Where results are stored; null = nowhere (the report only). */
  db: Db | null;
  concurrency?: number;
  /** Crash trials per victim process (all held at their fault points, then killed at once). */
  waveSize?: number;
  onProgress?: (progress: { done: number; total: number; label: string; failed: number }) => void;
};

export type EvalRunOutcome = {
  id: string | null;
  status: EvalRunStatus;
  scores: EvalScores;
  thresholds: Record<Dimension, number>;
  failures: string[];
  results: TrialResult[];
  codeVersion: string;
  agentVersions: Record<string, string>;
  policy: string;
  durationMs: number;
};

export function codeVersion(): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "HEAD"], { stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      stdio: ["ignore", "pipe", "ignore"],
    })
      .toString()
      .trim();
    return dirty ? `${sha}-dirty` : sha;
  } catch {
    return "unknown";
  }
}

export function agentVersions(subject: EvalSubject): Record<string, string> {
  return Object.fromEntries(
    subject.agents.map(({ definition: a }) => [a.slug, `${a.version}+${sha256(a.instructions).slice(0, 8)}`]),
  );
}

/** Run tasks with at most `limit` at once, in order of submission. */
async function pooled<T>(items: T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

export function aggregate(results: TrialResult[], cases: number): EvalScores {
  const mean = (d: Dimension) => {
    const values = results.map((r) => r.scores[d]).filter((v): v is number => v !== null);
    return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
  };
  const machine = results.map((r) => r.machineMs).sort((a, b) => a - b);
  const pct = (p: number) =>
    machine.length ? machine[Math.min(machine.length - 1, Math.floor(p * machine.length))] : 0;
  const sum = (f: (r: TrialResult) => number) => results.reduce((a, r) => a + f(r), 0);
  const figures: EvalFigures = {
    trials: results.length,
    passed: results.filter((r) => r.passed).length,
    cases,
    tokens: sum((r) => r.tokens),
    costUsd: sum((r) => r.costUsd),
    wallMs: sum((r) => r.wallMs),
    humanWaitMs: sum((r) => r.humanWaitMs),
    machineMs: sum((r) => r.machineMs),
    p50MachineMs: pct(0.5),
    p95MachineMs: pct(0.95),
  };
  return { ...(Object.fromEntries(DIMENSIONS.map((d) => [d, mean(d)])) as Record<Dimension, number | null>), figures };
}

export async function runEval(options: RunEvalOptions): Promise<EvalRunOutcome> {
  const started = Date.now();
  const selection = parseFaultSelection(options.faults);
  const cases = options.caseFilter?.length
    ? options.cases.filter((c) => options.caseFilter!.includes(c.id))
    : options.cases;
  if (cases.length === 0) throw new Error(`no case matches ${options.caseFilter?.join(", ")}`);
  const policyKind = options.policy ?? "scripted";
  const policy = await describePolicy(policyKind);
  const thresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  const subject = await loadSubject(options.subject);
  const ledgerEffects = declaredLedgerEffects(subject);
  const versions = agentVersions(subject);
  const code = codeVersion();
  const id = options.db
    ? await createEvalRun(options.db, {
        datasetId: options.dataset.id,
        datasetName: options.dataset.name,
        datasetVersion: options.dataset.version,
        codeVersion: code,
        agentVersions: versions,
        policy,
        faults: options.faults,
        caseFilter: options.caseFilter?.join(",") ?? null,
        thresholds,
      })
    : null;

  const dir = mkdtempSync(path.join(tmpdir(), "tether-eval-"));
  const concurrency = options.concurrency ?? 2;
  const waveSize = options.waveSize ?? 8;
  const pool: WorkerPool | null = selection.kinds.includes("crash") ? createWorkerPool(2) : null;
  let rescuer: Promise<WorkerProcess> | null = null;
  const env: TrialEnv = {
    dir,
    template: createTemplateDb(dir),
    policy: policyKind,
    subject: options.subject ? path.resolve(options.subject) : null,
    breakIdempotency: options.breakIdempotency ?? false,
    leaseMs: 600,
    trialTimeoutMs: 180_000,
  };
  const results: TrialResult[] = [];
  let total = cases.length;
  let done = 0;
  let trialNo = 0;
  const run = async (
    spec: EvalCaseSpec,
    fault: FaultSpec,
    baseline: Record<string, Record<string, number>> | null,
    position: number,
    wave?: CrashWave,
  ) => {
    const name = `t${trialNo++}`;
    const record = await runTrial(env, spec, fault, name, wave);
    const { counts, ...result } = scoreTrial(spec, fault, record, baseline, position);
    results.push(result);
    if (options.db && id) await saveTrialResult(options.db, id, result);
    done++;
    options.onProgress?.({
      done,
      total,
      label: `${spec.id} · ${fault.id}`,
      failed: results.filter((r) => !r.passed).length,
    });
    return { result, counts };
  };

  try {
    const baselines = new Map<string, { result: TrialResult; counts: Record<string, Record<string, number>> }>();
    await pooled(
      cases.map((spec, i) => ({ spec, i })),
      concurrency,
      async ({ spec, i }) => {
        baselines.set(spec.id, await run(spec, NO_FAULT, null, i * 100));
      },
    );
    const faultTrials = cases.flatMap((spec, i) => {
      const base = baselines.get(spec.id)!;
      return faultsFor(spec, base.result.trace, selection.kinds, ledgerEffects).map((fault, j) => ({
        spec,
        fault,
        counts: base.counts,
        position: i * 100 + j + 1,
      }));
    });
    total += faultTrials.length;
    const crashes = faultTrials.filter((t) => t.fault.kind === "crash");
    await pooled(
      faultTrials.filter((t) => t.fault.kind !== "crash"),
      concurrency,
      async (t) => {
        await run(t.spec, t.fault, t.counts, t.position);
      },
    );
    // Crash trials in waves: one victim process per wave, one rescuer process for all.
    for (let i = 0; i < crashes.length; i += waveSize) {
      const batch = crashes.slice(i, i + waveSize);
      const wave = createCrashWave(pool!, batch.length, () => (rescuer ??= pool!.acquire()));
      await Promise.all(batch.map((t) => run(t.spec, t.fault, t.counts, t.position, wave)));
    }

    results.sort((a, b) => a.position - b.position);
    const scores = aggregate(results, cases.length);
    const failures = DIMENSIONS.filter((d) => scores[d] !== null && scores[d]! < thresholds[d]).map(
      (d) => `${d} ${(scores[d]! * 100).toFixed(1)}% < ${(thresholds[d] * 100).toFixed(0)}%`,
    );
    const status: EvalRunStatus = failures.length ? "FAILED" : "PASSED";
    const durationMs = Date.now() - started;
    if (options.db && id) {
      await finishEvalRun(options.db, id, {
        status,
        scores,
        failures,
        caseCount: cases.length,
        trialCount: results.length,
        passedCount: scores.figures.passed,
        durationMs,
        reportPath: null,
      });
    }
    return {
      id,
      status,
      scores,
      thresholds,
      failures,
      results,
      codeVersion: code,
      agentVersions: versions,
      policy,
      durationMs,
    };
  } catch (error) {
    if (options.db && id) {
      await finishEvalRun(options.db, id, {
        status: "ERROR",
        scores: null,
        failures: [],
        caseCount: cases.length,
        trialCount: results.length,
        passedCount: 0,
        durationMs: Date.now() - started,
        reportPath: null,
        error: String(error),
      }).catch(() => {});
    }
    throw error;
  } finally {
    await pool?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
