import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setActionEnvironment } from "../lib/actions/define-action";
import { cancelRunAction, forkRunAction, resumeRunAction, retryRunAction } from "../lib/actions/runs";
import { findAuditLog } from "../lib/audit/audit-log";
import type { SessionUser } from "../lib/auth/rbac";
import { createDb, type Db } from "../lib/db";
import type { AgentDefinition } from "../lib/runtime";
import { getRuntime } from "../lib/runtime.server";
import { scriptedAgent } from "./support/agents";
import { providers, uid } from "./support/runtime";

// The operator's run actions: runs:operate on the server (a reviewer is refused whatever the page shows),
// one runtime operation each, audited, pages revalidated.

describe.each(providers())("run actions [%s]", (_provider, url) => {
  let db: Db;
  let session: SessionUser | null = null;
  const revalidated: string[] = [];
  const operator: SessionUser = { id: "usr_op", email: `${uid("op")}@example.com`, name: null, role: "operator" };
  const reviewer: SessionUser = { id: "usr_rev", email: `${uid("rev")}@example.com`, name: null, role: "reviewer" };

  beforeAll(() => {
    process.env.DATABASE_URL = url; // the runtime's composition root follows it
    db = createDb(url);
    setActionEnvironment({
      getUser: async () => session,
      getDb: () => db,
      revalidatePath: (p) => void revalidated.push(p),
    });
  });
  afterAll(async () => {
    setActionEnvironment(null);
    await db.$disconnect();
  });

  function register(agent: AgentDefinition) {
    getRuntime().context.agents.set(agent.slug, agent);
    return agent;
  }
  async function startRun(
    decisions: Parameters<typeof scriptedAgent>[2] = [{ kind: "record", facts: [{ key: "k", value: 1 }] }],
  ) {
    const agent = register(scriptedAgent(uid("ops"), [], decisions));
    return (await getRuntime().startRun({ agent: agent.slug, input: {} })).run;
  }

  it("a reviewer is refused every action on the server, and the refusal is audited", async () => {
    const run = await startRun();
    session = reviewer;
    for (const result of [
      await cancelRunAction({ runId: run.id }),
      await resumeRunAction({ runId: run.id }),
      await retryRunAction({ runId: run.id }),
      await forkRunAction({ runId: run.id, checkpointSeq: 1 }),
    ]) {
      expect(result).toMatchObject({ ok: false, code: "FORBIDDEN" });
    }
    expect((await getRuntime().getRun(run.id)).status).toBe("QUEUED");
    const denied = (await findAuditLog(db, { actor: reviewer.email })).map((row) => row.action).sort();
    expect(denied).toEqual(["runs.cancel.denied", "runs.fork.denied", "runs.resume.denied", "runs.retry.denied"]);
    session = null;
    expect(await cancelRunAction({ runId: run.id })).toMatchObject({ ok: false, code: "UNAUTHENTICATED" });
  });

  it("an operator cancels with a reason: the run is cancelled as them, audited, and cannot be cancelled twice", async () => {
    const run = await startRun();
    session = operator;
    revalidated.length = 0;
    expect(await cancelRunAction({ runId: run.id, reason: "wrong customer" })).toEqual({
      ok: true,
      data: { runId: run.id, status: "CANCELLED" },
    });
    expect(revalidated).toEqual([`/runs/${run.id}`, "/runs"]);
    const events = await getRuntime().store.listEvents(run.id);
    expect(events.find((e) => e.type === "run.cancelled")?.data).toEqual({
      by: operator.email,
      reason: "wrong customer",
    });
    expect(await findAuditLog(db, { target: run.id })).toEqual([
      expect.objectContaining({ actor: operator.email, action: "runs.cancel" }),
    ]);
    expect(await cancelRunAction({ runId: run.id })).toMatchObject({ ok: false, code: "RUN_NOT_WAITING" });
    expect(await findAuditLog(db, { target: run.id })).toHaveLength(1); // the refused second cancel changed nothing, so audited nothing
  });

  it("the audit row is part of the change's transaction: a change that loses its race writes none; a token's change names the token", async () => {
    const run = await startRun();
    // Two cancels race: the store's compare-and-set lets one through, and only that one leaves an audit row.
    const outcomes = await Promise.allSettled([
      getRuntime().cancelRun({ runId: run.id, by: operator.email, via: "token:ci" }),
      getRuntime().cancelRun({ runId: run.id, by: operator.email, via: "token:ci" }),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const rows = await findAuditLog(db, { target: run.id });
    expect(rows).toEqual([expect.objectContaining({ actor: operator.email, action: "runs.cancel" })]);
    expect(rows[0]!.data).toMatchObject({ via: "token:ci" });
  });

  it("an operator retries a failed run and resumes a run that needed attention", async () => {
    let hasFailed = false;
    const run = await startRun([
      () => (hasFailed ? { kind: "complete", output: 1 } : ((hasFailed = true), { kind: "fail", reason: "flaky" })),
    ]);
    await getRuntime().createWorker().drain();
    session = operator;
    expect(await retryRunAction({ runId: run.id, reason: "try again" })).toEqual({
      ok: true,
      data: { runId: run.id, status: "QUEUED" },
    });
    expect(await retryRunAction({ runId: run.id })).toMatchObject({ ok: false, code: "RUN_NOT_WAITING" });

    const parked = await startRun();
    await getRuntime().store.transitionRun({ runId: parked.id, from: ["QUEUED"], to: "NEEDS_ATTENTION", events: [] });
    expect(await resumeRunAction({ runId: parked.id })).toEqual({
      ok: true,
      data: { runId: parked.id, status: "QUEUED" },
    });
    expect((await findAuditLog(db, { target: parked.id })).map((r) => r.action)).toEqual(["runs.resume"]);
  });

  it("an operator forks a run from a checkpoint; a checkpoint that does not exist is NOT_FOUND", async () => {
    const run = await startRun();
    await getRuntime().createWorker().drain();
    session = operator;
    const fork = await forkRunAction({ runId: run.id, checkpointSeq: 1 });
    expect(fork).toMatchObject({ ok: true, data: { status: "QUEUED" } });
    const forked = await getRuntime().getRun(fork.ok ? fork.data.runId : "");
    expect(forked).toMatchObject({ parentRunId: run.id, startedBy: operator.email });
    // audited once, in the fork's own transaction (a fork that fails leaves no row: see the next two)
    expect(await findAuditLog(db, { target: run.id, action: "runs.fork" })).toEqual([
      expect.objectContaining({ actor: operator.email, data: { checkpointSeq: 1, forkId: forked.id } }),
    ]);
    expect(await forkRunAction({ runId: run.id, checkpointSeq: 999 })).toMatchObject({ ok: false, code: "NOT_FOUND" });
    expect(await forkRunAction({ runId: run.id, checkpointSeq: 0 })).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
    });
    expect(await findAuditLog(db, { target: run.id, action: "runs.fork" })).toHaveLength(1);
  });
});
