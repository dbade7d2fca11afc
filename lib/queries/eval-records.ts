/**
 * Journey evals — the read models (and dataset export) for the console's Evals pages and the CLI. The writes are
 * lib/evals/records.ts (the harness's) and lib/commands/import-dataset.ts (a person's import).
 * Every function takes an optional `db` (default: the process-wide client, i.e. DATABASE_URL).
 *
 *   findDatasets()                      → DatasetSummary[]   every dataset, with case count and its latest eval run
 *   getDataset(idOrName)                → DatasetDetail      + its cases (spec = the parsed JSONL line); NOT_FOUND
 *   findEvalRuns({ datasetName?, limit?, cursor? })
 *                                       → { runs: EvalRunSummary[], nextCursor }   newest first
 *   getEvalRun(id)                      → EvalRunDetail      + results: one per trial (case × fault), each with
 *                                         per-dimension scores, checks (what failed and why), the agent run's id,
 *                                         status, output, its trace events and the sandbox ledger rows; NOT_FOUND
 *   scoreHistory({ datasetName?, limit? })
 *                                       → ScorePoint[]       each finished eval run's scores, oldest first (charts)
 *   compareEvalRuns(a, b)               → EvalRunComparison  the trials whose outcome or scores changed from a to b
 *   exportDatasetJsonl(idOrName)        → string             the dataset as JSONL (one case a line)
 *
 * Where the agent runs live: an eval runs its agents in a throwaway SQLite database per trial (the
 * sandbox world is part of the database, and trials must not see each other's world), so
 * `result.runId` does NOT exist in the console's database. Link instead to the result itself: the
 * result carries the run's trace (`trace`: seq, step, type, at, data) and ledger, enough to render a
 * timeline. Scores are 0..1 (null = not applicable to that trial); `scores.figures` holds tokens, cost
 * and times (wall, human wait, machine) in the aggregate.
 */
import { getDb, type Db } from "@/lib/db";
import type { EvalRun } from "@/lib/generated/sqlite/client";
import { AppError } from "@/lib/runtime/errors";
import { casesToJsonl } from "@/lib/evals/jsonl";
import {
  DIMENSIONS,
  evalCaseSpecSchema,
  type CheckResult,
  type Dimension,
  type EvalCaseSpec,
  type Scores,
} from "@/lib/evals/spec";
import type { EvalRunStatus, EvalScores, LedgerRow, TraceEventSummary, TrialResult } from "@/lib/evals/types";

export type DatasetSummary = {
  id: string;
  name: string;
  description: string;
  version: string;
  source: string | null;
  caseCount: number;
  agents: string[];
  updatedAt: Date;
  lastRun: { id: string; status: EvalRunStatus; startedAt: Date } | null;
};

export type DatasetCase = {
  caseId: string;
  position: number;
  agent: string;
  title: string;
  tags: string[];
  spec: EvalCaseSpec;
};
export type DatasetDetail = Omit<DatasetSummary, "lastRun"> & { cases: DatasetCase[] };

/** An eval run as stored, its JSON columns parsed. */
export type EvalRunSummary = Omit<
  EvalRun,
  "workspaceId" | "status" | "agentVersions" | "scores" | "thresholds" | "failures"
> & {
  status: EvalRunStatus;
  agentVersions: Record<string, string>;
  scores: Partial<EvalScores>;
  thresholds: Partial<Record<Dimension, number>>;
  failures: string[];
};

/** One trial as stored: what the harness produced (types.ts), with its row id. */
export type EvalResultDetail = Omit<TrialResult, "position"> & { id: string };

export type EvalRunDetail = EvalRunSummary & { results: EvalResultDetail[] };

export type ScorePoint = {
  evalRunId: string;
  startedAt: Date;
  status: EvalRunStatus;
  codeVersion: string;
  datasetName: string;
  datasetVersion: string;
  policy: string;
  faults: string;
  scores: Partial<EvalScores>;
};

export type TrialChange = {
  caseId: string;
  fault: string;
  change: "fixed" | "broke" | "scores" | "added" | "removed";
  before: { passed: boolean; scores: Scores; runStatus: string | null } | null;
  after: { passed: boolean; scores: Scores; runStatus: string | null } | null;
  /** Dimensions whose score differs, with both values. */
  deltas: Array<{ dimension: Dimension; before: number | null; after: number | null }>;
};

export type EvalRunComparison = {
  a: EvalRunSummary;
  b: EvalRunSummary;
  sameDataset: boolean;
  sameCode: boolean;
  scoreDeltas: Array<{ dimension: Dimension; before: number | null; after: number | null }>;
  changed: TrialChange[];
  unchanged: number;
};

const parse = <T>(text: string | null, fallback: T): T => {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

const notFound = (what: string, id: string) =>
  new AppError("NOT_FOUND", { message: `${what} ${id} not found`, userMessage: `There is no ${what} "${id}".` });

// ---- datasets

type DatasetRow = {
  id: string;
  name: string;
  description: string;
  version: string;
  source: string | null;
  updatedAt: Date;
};
type CaseRow = { caseId: string; position: number; agent: string; title: string; tags: string; spec: string };

function toCase({ caseId, position, agent, title, tags, spec }: CaseRow): DatasetCase {
  return {
    caseId,
    position,
    agent,
    title,
    tags: parse<string[]>(tags, []),
    spec: evalCaseSpecSchema.parse(JSON.parse(spec)),
  };
}

function toDatasetDetail(row: DatasetRow, cases: CaseRow[]): DatasetDetail {
  const parsed = cases.toSorted((x, y) => x.position - y.position).map(toCase);
  return { ...row, caseCount: parsed.length, agents: [...new Set(parsed.map((c) => c.agent))].sort(), cases: parsed };
}

export async function findDatasets(db: Db = getDb()): Promise<DatasetSummary[]> {
  const rows = await db.evalDataset.findMany({
    orderBy: { name: "asc" },
    include: {
      cases: { select: { agent: true } },
      runs: { orderBy: { startedAt: "desc" }, take: 1, select: { id: true, status: true, startedAt: true } },
    },
  });
  return rows.map(({ cases, runs, ...row }) => ({
    ...row,
    caseCount: cases.length,
    agents: [...new Set(cases.map((c) => c.agent))].sort(),
    lastRun: runs[0] ? { ...runs[0], status: runs[0].status as EvalRunStatus } : null,
  }));
}

/** A dataset by id or by name, with its cases in order. */
export async function getDataset(idOrName: string, db: Db = getDb()): Promise<DatasetDetail> {
  const row = await db.evalDataset.findFirst({
    where: { OR: [{ id: idOrName }, { name: idOrName }] },
    include: { cases: true },
  });
  if (!row) throw notFound("dataset", idOrName);
  const { cases, ...rest } = row;
  return toDatasetDetail(rest, cases);
}

export async function exportDatasetJsonl(idOrName: string, db: Db = getDb()): Promise<string> {
  const dataset = await getDataset(idOrName, db);
  return casesToJsonl(dataset.cases.map((c) => c.spec));
}

// ---- eval runs

function toRunSummary(row: EvalRun): EvalRunSummary {
  return {
    ...row,
    status: row.status as EvalRunStatus,
    agentVersions: parse(row.agentVersions, {}),
    scores: parse(row.scores, {}),
    thresholds: parse(row.thresholds, {}),
    failures: parse(row.failures, []),
  };
}

export async function findEvalRuns(
  filter: { datasetName?: string; limit?: number; cursor?: string } = {},
  db: Db = getDb(),
): Promise<{ runs: EvalRunSummary[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  const rows = await db.evalRun.findMany({
    where: filter.datasetName ? { datasetName: filter.datasetName } : undefined,
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(filter.cursor ? { cursor: { id: filter.cursor }, skip: 1 } : {}),
  });
  return { runs: rows.slice(0, limit).map(toRunSummary), nextCursor: rows.length > limit ? rows[limit - 1].id : null };
}

export async function getEvalRun(id: string, db: Db = getDb()): Promise<EvalRunDetail> {
  const row = await db.evalRun.findUnique({
    where: { id },
    include: { results: { orderBy: [{ position: "asc" }, { id: "asc" }] } },
  });
  if (!row) throw notFound("eval run", id);
  const { results, ...run } = row;
  return {
    ...toRunSummary(run),
    results: results.map((r) => ({
      id: r.id,
      caseId: r.caseId,
      agent: r.agent,
      fault: r.fault,
      passed: r.passed,
      scores: parse<Scores>(r.scores, emptyScores()),
      checks: parse<CheckResult[]>(r.checks, []),
      runId: r.runId,
      runStatus: r.runStatus,
      output: parse<unknown>(r.output, null),
      trace: parse<TraceEventSummary[]>(r.trace, []),
      ledger: parse<LedgerRow[]>(r.ledger, []),
      tokens: r.tokens,
      costUsd: r.costUsd,
      wallMs: r.wallMs,
      humanWaitMs: r.humanWaitMs,
      machineMs: r.machineMs,
      error: r.error,
    })),
  };
}

export function emptyScores(): Scores {
  return Object.fromEntries(DIMENSIONS.map((d) => [d, null])) as Scores;
}

/** Each finished eval run's scores, oldest first: one series per dimension for a chart. */
export async function scoreHistory(
  filter: { datasetName?: string; limit?: number } = {},
  db: Db = getDb(),
): Promise<ScorePoint[]> {
  const rows = await db.evalRun.findMany({
    where: { status: { in: ["PASSED", "FAILED"] }, ...(filter.datasetName ? { datasetName: filter.datasetName } : {}) },
    orderBy: { startedAt: "desc" },
    take: Math.min(filter.limit ?? 100, 500),
    select: {
      id: true,
      startedAt: true,
      status: true,
      codeVersion: true,
      datasetName: true,
      datasetVersion: true,
      policy: true,
      faults: true,
      scores: true,
    },
  });
  return rows.reverse().map((r) => ({
    evalRunId: r.id,
    startedAt: r.startedAt,
    status: r.status as EvalRunStatus,
    codeVersion: r.codeVersion,
    datasetName: r.datasetName,
    datasetVersion: r.datasetVersion,
    policy: r.policy,
    faults: r.faults,
    scores: parse(r.scores, {}),
  }));
}

/** What changed between two eval runs: trials (case × fault) that broke, got fixed, or scored differently. */
export async function compareEvalRuns(aId: string, bId: string, db: Db = getDb()): Promise<EvalRunComparison> {
  const [a, b] = await Promise.all([getEvalRun(aId, db), getEvalRun(bId, db)]);
  const key = (r: { caseId: string; fault: string }) => `${r.caseId}\u0000${r.fault}`;
  const before = new Map(a.results.map((r) => [key(r), r]));
  const after = new Map(b.results.map((r) => [key(r), r]));
  const brief = (r: EvalResultDetail | undefined) =>
    r ? { passed: r.passed, scores: r.scores, runStatus: r.runStatus } : null;
  const changed: TrialChange[] = [];
  let unchanged = 0;
  for (const k of new Set([...before.keys(), ...after.keys()])) {
    const x = before.get(k);
    const y = after.get(k);
    const [caseId, fault] = k.split("\u0000");
    const deltas = DIMENSIONS.flatMap((dimension) => {
      const p = x?.scores[dimension] ?? null;
      const q = y?.scores[dimension] ?? null;
      return x && y && p !== q ? [{ dimension, before: p, after: q }] : [];
    });
    const change: TrialChange["change"] | null = !x
      ? "added"
      : !y
        ? "removed"
        : x.passed && !y.passed
          ? "broke"
          : !x.passed && y.passed
            ? "fixed"
            : deltas.length > 0
              ? "scores"
              : null;
    if (change) changed.push({ caseId, fault, change, before: brief(x), after: brief(y), deltas });
    else unchanged++;
  }
  const order = { broke: 0, fixed: 1, scores: 2, added: 3, removed: 4 };
  changed.sort(
    (p, q) => order[p.change] - order[q.change] || p.caseId.localeCompare(q.caseId) || p.fault.localeCompare(q.fault),
  );
  const { results: _ra, ...aSummary } = a;
  const { results: _rb, ...bSummary } = b;
  return {
    a: aSummary,
    b: bSummary,
    sameDataset: a.datasetName === b.datasetName && a.datasetVersion === b.datasetVersion,
    sameCode: a.codeVersion === b.codeVersion,
    scoreDeltas: DIMENSIONS.map((dimension) => ({
      dimension,
      before: a.scores[dimension] ?? null,
      after: b.scores[dimension] ?? null,
    })),
    changed,
    unchanged,
  };
}
