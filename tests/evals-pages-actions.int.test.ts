import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setActionEnvironment } from "../lib/actions/define-action";
import { importDatasetAction } from "../lib/actions/evals";
import { findAuditLog } from "../lib/audit/audit-log";
import type { SessionUser } from "../lib/auth/rbac";
import { createDb, type Db } from "../lib/db";
import { getDataset } from "../lib/queries/eval-records";
import { createEvalRun, saveTrialResult } from "../lib/evals/records";
import { DEFAULT_THRESHOLDS } from "../lib/evals/spec";
import { emptyScores } from "../lib/queries/eval-records";
import { getEvalRunProgress, orNull } from "../lib/queries/evals";
import { AppError } from "../lib/runtime/errors";
import { providers, uid } from "./support/runtime";

// The Evals pages' server side on each database: importing a JSONL dataset through the server action
// (admins only; every invalid line reported, nothing changed) and the light progress read a running
// eval run's page polls.

const user = (role: SessionUser["role"]): SessionUser => ({
  id: uid("usr"),
  email: `${role}-${uid()}@test.example`,
  name: null,
  role,
});

const line = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    agent: "refund-agent",
    title: `Case ${id}`,
    tags: ["t"],
    input: { orderId: "ord_1" },
    expect: { status: "COMPLETED" },
    ...extra,
  });

describe.each(providers())("evals pages [%s]", (_provider, url) => {
  let db: Db;
  let session: SessionUser | null = null;
  const revalidated: string[] = [];
  beforeAll(() => {
    db = createDb(url);
    setActionEnvironment({
      getUser: async () => session,
      getDb: () => db,
      revalidatePath: (p) => void revalidated.push(p),
      logError: () => {},
    });
  });
  afterAll(async () => {
    setActionEnvironment(null);
    await db.$disconnect();
  });
  afterEach(() => {
    session = null;
    revalidated.length = 0;
  });

  describe("importDatasetAction", () => {
    it("an admin imports a dataset: stored with its cases, pages revalidated, audited without the file", async () => {
      session = user("admin");
      const name = uid("ds");
      const result = await importDatasetAction({
        name,
        description: "two cases",
        jsonl: `// a comment\n${line("a")}\n\n${line("b")}\n`,
      });
      expect(result).toEqual({
        ok: true,
        data: { name, version: expect.stringMatching(/^[0-9a-f]{16}$/), caseCount: 2 },
      });
      const stored = await getDataset(name, db);
      expect(stored).toMatchObject({
        description: "two cases",
        source: "console upload",
        caseCount: 2,
        agents: ["refund-agent"],
      });
      expect(stored.cases.map((c) => c.caseId)).toEqual(["a", "b"]);
      expect(revalidated).toEqual(["/evals/datasets", `/evals/datasets/${name}`]);
      const [audit] = await findAuditLog(db, { target: name });
      expect(audit).toMatchObject({
        actor: session.email,
        action: "evals.datasets.import",
        data: { version: stored.version, caseCount: 2 },
      });
    });

    it("lists every invalid line and changes nothing", async () => {
      session = user("admin");
      const name = uid("ds");
      await importDatasetAction({ name, jsonl: line("keep") });
      const before = await getDataset(name, db);
      const result = await importDatasetAction({
        name,
        jsonl: [line("ok"), "{not json", line("BAD ID"), line("ok")].join("\n"),
      });
      expect(result).toMatchObject({
        ok: false,
        code: "INVALID_INPUT",
        message: "3 lines are invalid. Nothing was imported.",
      });
      const errors = result.ok ? [] : result.fieldErrors!.jsonl;
      expect(errors).toHaveLength(3);
      expect(errors[0]).toMatch(/^Line 2: not JSON/);
      expect(errors[1]).toMatch(/^Line 3: id: A case id is lower-case/);
      expect(errors[2]).toBe("Line 4: duplicate case id ok");
      const after = await getDataset(name, db);
      expect(after.version).toBe(before.version);
      expect(after.cases.map((c) => c.caseId)).toEqual(["keep"]);
    });

    it("refuses a bad name or an empty dataset with field errors", async () => {
      session = user("admin");
      expect(await importDatasetAction({ name: "Has Spaces", jsonl: line("a") })).toMatchObject({
        ok: false,
        code: "INVALID_INPUT",
        fieldErrors: { name: [expect.stringContaining("lower-case")] },
      });
      expect(await importDatasetAction({ name: uid("ds"), jsonl: "// only a comment\n" })).toMatchObject({
        ok: false,
        code: "INVALID_INPUT",
        message: "The dataset has no cases.",
      });
    });

    it("refuses reviewers and operators on the server (FORBIDDEN, audited), whatever the page shows", async () => {
      for (const role of ["reviewer", "operator"] as const) {
        session = user(role);
        const name = uid("ds");
        expect(await importDatasetAction({ name, jsonl: line("a") })).toEqual({
          ok: false,
          code: "FORBIDDEN",
          message: `Your role (${role}) does not allow this.`,
        });
        expect(await orNull(getDataset(name, db))).toBeNull();
        expect(await findAuditLog(db, { actor: session.email })).toEqual([
          expect.objectContaining({ action: "evals.datasets.import.denied" }),
        ]);
      }
      session = null;
      expect(await importDatasetAction({ name: uid("ds"), jsonl: line("a") })).toMatchObject({
        ok: false,
        code: "UNAUTHENTICATED",
      });
    });
  });

  describe("getEvalRunProgress", () => {
    it("counts the trials stored so far while the eval run is RUNNING", async () => {
      const id = await createEvalRun(db, {
        datasetId: null,
        datasetName: uid("ds"),
        datasetVersion: "v1",
        codeVersion: "abc",
        agentVersions: {},
        policy: "scripted",
        faults: "none",
        caseFilter: null,
        thresholds: DEFAULT_THRESHOLDS,
      });
      expect(await getEvalRunProgress(id, db)).toEqual({
        id,
        status: "RUNNING",
        resultCount: 0,
        passedCount: 0,
        finishedAt: null,
      });
      const trial = {
        agent: "refund-agent",
        fault: "none",
        scores: emptyScores(),
        checks: [],
        runId: null,
        runStatus: "COMPLETED",
        trace: [],
        ledger: [],
        output: null,
        tokens: 0,
        costUsd: 0,
        wallMs: 1,
        humanWaitMs: 0,
        machineMs: 1,
        error: null,
      };
      await saveTrialResult(db, id, { ...trial, caseId: "a", passed: true, position: 0 });
      await saveTrialResult(db, id, { ...trial, caseId: "b", passed: false, position: 1 });
      expect(await getEvalRunProgress(id, db)).toMatchObject({ status: "RUNNING", resultCount: 2, passedCount: 1 });
      await expect(getEvalRunProgress("evr_missing", db)).rejects.toBeInstanceOf(AppError);
    });
  });
});
