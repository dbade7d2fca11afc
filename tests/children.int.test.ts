import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { findTool, type AgentDefinition, type Decision, type ToolDefinition } from "../lib/runtime";
import { getPacketView } from "../lib/queries/packets";
import { findRunFamily } from "../lib/queries/run-family";
import { childIdempotencyKey } from "../lib/runtime/children";
import { childResult, spawn } from "../lib/sdk";
import { scriptedAgent, spawning } from "./support/agents";
import { deleteRun } from "../lib/commands/delete-run";
import { purgeFinishedRuns } from "../lib/retention/purge-finished-runs";
import { createTestRuntime, expectError, manualClock, providers, uid } from "./support/runtime";

// Child runs: a step starts a run of another agent and waits for it, durably and once.

const DAY = 24 * 60 * 60 * 1000;

describe.each(providers())("child runs [%s]", (_provider, url) => {
  const clock = manualClock();
  let t: ReturnType<typeof createTestRuntime>;
  /** The first "after-spawn" of a run named here throws: the step dies after the child started, before the parent recorded it. */
  const crashAfterSpawn = new Set<string>();

  beforeAll(() => {
    t = createTestRuntime(url, {
      clock,
      childCheckMs: 60_000,
      onFaultPoint: (point, info) => {
        if (point === "after-spawn" && crashAfterSpawn.delete(info.runId))
          throw new Error("simulated crash after the child started");
      },
    });
  });
  afterAll(() => t.close());

  function register<T extends AgentDefinition>(agent: T): T {
    t.runtime.context.agents.set(agent.slug, agent as never);
    return agent;
  }
  const drain = () => t.runtime.createWorker().drain();
  /** A parent that starts one child and completes with what the child gave. */
  const parentOf = (child: string, input: unknown = { n: 1 }) =>
    register(
      spawning(
        [child],
        scriptedAgent(
          uid("parent"),
          [],
          [
            spawn(child, input, { reason: "delegate" }),
            ({ state }) => ({ kind: "complete", output: { child: childResult(state, child) ?? null } }),
          ],
        ),
      ),
    );
  const childThatWaits = () =>
    register(
      scriptedAgent(
        uid("child-wait"),
        [],
        [
          { kind: "wait_event", eventType: "go" },
          { kind: "complete", output: { went: true } },
        ],
      ),
    );
  const childrenOf = (runId: string) => t.db.run.findMany({ where: { spawnedByRunId: runId } });

  it("a step starts a child run; the parent waits and records the child's outcome as a receipt", async () => {
    const child = register(
      scriptedAgent(
        uid("child"),
        [],
        [({ state }) => ({ kind: "complete", output: { doubled: (state.input as { n: number }).n * 2 } })],
      ),
    );
    const parent = parentOf(child.slug, { n: 21 });
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {}, startedBy: "ana@example.com" });
    await drain();

    const [childRow] = await childrenOf(run.id);
    expect(childRow).toMatchObject({
      agentSlug: child.slug,
      status: "COMPLETED",
      spawnedAtStep: 0,
      startedBy: "ana@example.com",
      idempotencyKey: childIdempotencyKey(run.id, 0),
      parentRunId: null,
    });
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    const outcome = { runId: childRow.id, agent: child.slug, status: "COMPLETED", output: { doubled: 42 } };
    expect(done.state.output).toEqual({ child: outcome });
    const fact = done.state.facts.find((f) => f.key === `child:${childRow.id}`);
    expect(fact).toMatchObject({ kind: "receipt", value: outcome, source: { receiptId: childRow.id } });

    const parentEvents = (await t.store.listEvents(run.id)).map((e) => e.type);
    expect(parentEvents).toEqual(expect.arrayContaining(["child.started", "child.completed"]));
    const spawnedBy = (await t.store.listEvents(childRow.id)).find((e) => e.type === "run.spawned_by");
    expect(spawnedBy?.data).toMatchObject({ parentRunId: run.id, parentStep: 0, parentAgent: parent.slug });
  });

  it("the parent parks while its child runs: no lease, no compute; the child's end wakes it", async () => {
    const child = childThatWaits();
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const [childRow] = await childrenOf(run.id);
    expect(childRow.status).toBe("WAITING_EVENT");
    const parked = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(parked).toMatchObject({ status: "WAITING_EVENT", waitingFor: `child:${childRow.id}`, leaseOwner: null });
    expect(parked.runnableAt!.getTime()).toBe(clock.now().getTime() + 60_000); // only the backstop timer

    await t.runtime.deliverSignal(childRow.id, { type: "go", dedupKey: "go-1" });
    await drain();
    expect((await t.runtime.getRun(childRow.id)).status).toBe("COMPLETED");
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toEqual({
      child: { runId: childRow.id, agent: child.slug, status: "COMPLETED", output: { went: true } },
    });
    expect(await t.store.listSignals(run.id, { unconsumed: true })).toEqual([]);
  });

  it("a parent whose child is still going looks again later and later (the backstop's wait doubles)", async () => {
    const child = childThatWaits();
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    for (const [checks, waitMs] of [
      [1, 120_000],
      [2, 240_000],
    ]) {
      const due = (await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).runnableAt!;
      clock.set(new Date(due.getTime() + 1));
      await drain();
      const parked = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(parked.status).toBe("WAITING_EVENT");
      expect(parked.runnableAt!.getTime()).toBe(clock.now().getTime() + waitMs);
      expect((await t.runtime.getRun(run.id)).state.pending).toMatchObject({ kind: "child", checks });
    }
    await t.runtime.cancelRun({ runId: run.id, by: "ops@example.com" });
  });

  it("a crash after the child started and before the parent recorded it starts no second child", async () => {
    const child = register(scriptedAgent(uid("child"), [], [{ kind: "complete", output: "once" }]));
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    crashAfterSpawn.add(run.id);
    await t.runtime.createWorker().runOnce({ runId: run.id }); // the step dies; its lease is left to expire
    const orphaned = await t.runtime.getRun(run.id);
    expect(orphaned.state.pending).toBeNull(); // the parent recorded nothing
    expect(await childrenOf(run.id)).toHaveLength(1);

    // The dead step's lease runs out (on the test's clock).
    const past = new Date(clock.now().getTime() - 1);
    await t.db.run.update({ where: { id: run.id }, data: { leaseExpiresAt: past, runnableAt: past } });
    await drain();
    const children = await childrenOf(run.id);
    expect(children).toHaveLength(1);
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ child: { runId: children[0].id, status: "COMPLETED", output: "once" } });
    expect((await t.store.listEvents(run.id)).find((e) => e.type === "child.started")?.data).toMatchObject({
      childRunId: children[0].id,
      created: false,
    });
  });

  it("a child that fails is recorded as failed; the parent decides what next", async () => {
    const child = register(scriptedAgent(uid("child-fail"), [], [{ kind: "fail", reason: "no stock" }]));
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.state.output).toMatchObject({ child: { agent: child.slug, status: "FAILED", error: "no stock" } });
  });

  it("an agent its definition does not name, an unknown agent or an input its schema refuses is fed back to the policy; no child starts", async () => {
    const typed = register({ ...scriptedAgent(uid("child-typed"), [], []), input: z.object({ n: z.number() }) });
    const other = register(scriptedAgent(uid("child-other"), [], []));
    const lastObservation = ({ state }: { state: { observations: unknown[] } }) => ({
      kind: "complete" as const,
      output: state.observations.at(-1),
    });
    const cases = [
      { spawns: [typed.slug], decision: spawn(other.slug, {}), code: "SPAWN_NOT_ALLOWED" },
      { spawns: ["no-such-agent"], decision: spawn("no-such-agent", {}), code: "UNKNOWN_AGENT" },
      { spawns: [typed.slug], decision: spawn(typed.slug, { n: "one" }), code: "INVALID_ARGS" },
    ];
    for (const { spawns, decision, code } of cases) {
      const parent = register(spawning(spawns, scriptedAgent(uid("parent-bad"), [], [decision, lastObservation])));
      const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
      await drain();
      const done = await t.runtime.getRun(run.id);
      expect(done.state.output).toMatchObject({ kind: "tool_error", tool: `spawn:${decision.agent}`, data: { code } });
      expect(await childrenOf(run.id)).toEqual([]);
    }
  });

  it("cancelling the parent cancels its running children (and theirs)", async () => {
    const grandchild = childThatWaits();
    const child = register(
      spawning([grandchild.slug], scriptedAgent(uid("child-mid"), [], [spawn(grandchild.slug, {})])),
    );
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const [childRow] = await childrenOf(run.id);
    const [grandRow] = await childrenOf(childRow.id);
    expect([childRow.status, grandRow.status]).toEqual(["WAITING_EVENT", "WAITING_EVENT"]);

    await t.runtime.cancelRun({ runId: run.id, by: "ops@example.com", reason: "not needed" });
    for (const id of [run.id, childRow.id, grandRow.id]) expect((await t.runtime.getRun(id)).status).toBe("CANCELLED");
    const cancelled = (await t.store.listEvents(grandRow.id)).find((e) => e.type === "run.cancelled");
    expect(cancelled?.data).toMatchObject({
      by: "ops@example.com",
      cascaded: true,
      reason: `its parent run ${childRow.id} was cancelled`,
    });
  });

  it("a child whose parent was cancelled without it (a crash mid-cascade) ends when it is next stepped", async () => {
    const child = childThatWaits();
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const [childRow] = await childrenOf(run.id);
    // The parent's cancel committed; its cascade never ran.
    await t.db.run.update({ where: { id: run.id }, data: { status: "CANCELLED", runnableAt: null, wakeAt: null } });
    await t.runtime.deliverSignal(childRow.id, { type: "go", dedupKey: "go-1" });
    await drain();
    const ended = await t.runtime.getRun(childRow.id);
    expect(ended.status).toBe("CANCELLED");
    expect(ended.state.output).toBeUndefined(); // it did not go on to complete
    expect((await t.store.listEvents(childRow.id)).find((e) => e.type === "run.cancelled")?.data).toMatchObject({
      cascaded: true,
      reason: `its parent run ${run.id} was cancelled`,
    });
  });

  it("a child cancelled by hand wakes its parent, which records the cancellation", async () => {
    const child = childThatWaits();
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const [childRow] = await childrenOf(run.id);
    await t.runtime.cancelRun({ runId: childRow.id, by: "ops@example.com" });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ child: { runId: childRow.id, status: "CANCELLED" } });
  });

  it("the child's last commit wakes its parked parent in the same transaction (no signal needed)", async () => {
    const child = childThatWaits();
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const [childRow] = await childrenOf(run.id);
    const before = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(before.runnableAt!.getTime()).toBeGreaterThan(clock.now().getTime()); // parked until the backstop
    // The child's final commit, as the worker writes it, with nothing after it (as if its worker died there).
    await t.runtime.deliverSignal(childRow.id, { type: "go", dedupKey: "go-1" });
    const claim = (await t.store.claimRun({
      owner: "w-child",
      now: clock.now(),
      leaseMs: 60_000,
      runId: childRow.id,
    }))!;
    await t.store.commitStep({
      lease: claim.lease,
      status: "COMPLETED",
      state: { ...claim.run.state, output: { went: true } },
      storedEntries: claim.run.storedEntries,
      releaseLease: true,
      events: [{ type: "run.completed", step: claim.run.state.step, data: { output: { went: true } } }],
      wakeRun: { runId: run.id, waitingFor: `child:${childRow.id}` },
    });
    const woken = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(woken.runnableAt!.getTime()).toBeLessThanOrEqual(clock.now().getTime());
    expect(await t.store.listSignals(run.id)).toEqual([]);
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({
      child: { runId: childRow.id, status: "COMPLETED", output: { went: true } },
    });
  });

  it("a child's cancel wakes its parked parent in the cancel's own transaction", async () => {
    const child = childThatWaits();
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const [childRow] = await childrenOf(run.id);
    // The store's half of cancelRun, with nothing after it (no signal).
    await t.store.transitionRun({
      runId: childRow.id,
      from: ["WAITING_EVENT"],
      to: "CANCELLED",
      revokeLease: true,
      events: [],
      wakeRun: { runId: run.id, waitingFor: `child:${childRow.id}` },
    });
    const woken = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(woken.runnableAt!.getTime()).toBeLessThanOrEqual(clock.now().getTime());
    expect(await t.store.listSignals(run.id)).toEqual([]);
    await drain();
    expect((await t.runtime.getRun(run.id)).state.output).toMatchObject({
      child: { runId: childRow.id, status: "CANCELLED" },
    });
  });

  it("a lost wake-up is made good by the backstop timer: the parent reads the child itself", async () => {
    const child = childThatWaits();
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const [childRow] = await childrenOf(run.id);
    await t.runtime.deliverSignal(childRow.id, { type: "go", dedupKey: "go-1" });
    await t.runtime.createWorker().runOnce({ runId: childRow.id });
    // The wake-up is lost (as if the child's worker died between its last commit and the signal).
    await t.db.signal.deleteMany({ where: { runId: run.id } });
    await t.db.run.update({
      where: { id: run.id },
      data: { runnableAt: new Date(clock.now().getTime() + 60_000), wakeAt: new Date(clock.now().getTime() + 60_000) },
    });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_EVENT");
    clock.advance(60_001);
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ child: { runId: childRow.id, status: "COMPLETED" } });
  });

  it("deleting a finished parent deletes its children and theirs, each audited; a child still going refuses it", async () => {
    const grandchild = register(scriptedAgent(uid("grand"), [], [{ kind: "complete", output: 1 }]));
    const child = register(
      spawning([grandchild.slug], scriptedAgent(uid("child-mid"), [], [spawn(grandchild.slug, {})])),
    );
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("COMPLETED");
    const [childRow] = await childrenOf(run.id);
    const [grandRow] = await childrenOf(childRow.id);

    const deleted = await deleteRun(t.db, { runId: run.id, by: "ada@example.com" });
    expect(deleted.children).toEqual([childRow.id, grandRow.id]);
    expect(await t.db.run.count({ where: { id: { in: [run.id, childRow.id, grandRow.id] } } })).toBe(0);
    const audit = await t.db.auditLog.findMany({
      where: { target: { in: [run.id, childRow.id, grandRow.id] }, action: "runs.delete" },
    });
    expect(audit).toHaveLength(3);
    expect(JSON.parse(audit.find((a) => a.target === grandRow.id)!.data)).toMatchObject({
      cascadedFrom: run.id,
      spawnedByRunId: childRow.id,
    });

    const waiting = childThatWaits();
    const other = parentOf(waiting.slug);
    const { run: second } = await t.runtime.startRun({ agent: other.slug, input: {} });
    await drain();
    await t.db.run.update({ where: { id: second.id }, data: { status: "FAILED" } }); // as if it ended without its child
    const error = await expectError(deleteRun(t.db, { runId: second.id, by: "ada@example.com" }), "CONFLICT");
    expect(error.userMessage).toMatch(/still going/);
    expect(await t.db.run.count({ where: { id: second.id } })).toBe(1);
  });

  it("retention compacts a finished child only once its parent has finished too", async () => {
    const child = register(scriptedAgent(uid("child"), [], [{ kind: "complete", output: 1 }]));
    const parent = register(
      spawning(
        [child.slug],
        scriptedAgent(uid("parent-hold"), [], [spawn(child.slug, {}), { kind: "wait_event", eventType: "hold" }]),
      ),
    );
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const [childRow] = await childrenOf(run.id);
    expect(childRow.status).toBe("COMPLETED");
    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_EVENT");
    const old = new Date(Date.now() - 40 * DAY);
    const backdate = () => t.db.run.update({ where: { id: childRow.id }, data: { createdAt: old, updatedAt: old } });
    await backdate();
    const purge = () => purgeFinishedRuns(t.db, { now: new Date(), retentionDays: 30 });
    await purge();
    expect((await t.db.run.findUniqueOrThrow({ where: { id: childRow.id } })).compactedAt).toBeNull();

    await t.runtime.deliverSignal(run.id, { type: "hold", dedupKey: "hold-1" });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("COMPLETED");
    await purge();
    expect((await t.db.run.findUniqueOrThrow({ where: { id: childRow.id } })).compactedAt).not.toBeNull();
  });

  it("the console reads a run's family, and a child's packet carries its parent's context", async () => {
    const tool: ToolDefinition = {
      name: uid("notes.write"),
      description: "writes a note",
      capability: "execute",
      semantics: "idempotent",
      input: z.object({ text: z.string() }),
      impact: ({ text }: { text: string }) => `writes "${text}"`,
      run: async () => ({ ok: true }),
    };
    t.runtime.context.tools.set(tool.name, tool);
    const child = register(
      scriptedAgent(
        uid("child-gated"),
        [tool.name],
        [{ kind: "call", tool: tool.name, args: { text: "hi" }, evidence: [] }],
      ),
    );
    await t.runtime.permissions.put(
      { agent: child.slug, tool: tool.name, effect: "require_approval" },
      { by: "admin@test" },
    );
    const parent = parentOf(child.slug);
    const { run } = await t.runtime.startRun({ agent: parent.slug, input: {} });
    await drain();
    const [childRow] = await childrenOf(run.id);
    expect(childRow.status).toBe("WAITING_APPROVAL");

    const parentRun = await t.runtime.getRun(run.id);
    expect(await findRunFamily(parentRun, t.db)).toEqual({
      parent: null,
      children: [{ id: childRow.id, agentSlug: child.slug, status: "WAITING_APPROVAL", spawnedAtStep: 0 }],
    });
    const childRun = await t.runtime.getRun(childRow.id);
    expect(await findRunFamily(childRun, t.db)).toEqual({
      parent: { id: run.id, agentSlug: parent.slug, status: "WAITING_EVENT", spawnedAtStep: 0 },
      children: [],
    });

    const [packet] = await t.store.findPackets({ runId: childRow.id, status: ["PENDING"] });
    const view = await getPacketView(packet.id, {
      store: t.store,
      db: t.db,
      findTool: (name) => findTool(t.runtime.context, name),
    });
    expect(view?.run).toEqual({
      status: "WAITING_APPROVAL",
      agent: child.slug,
      parent: { id: run.id, agentSlug: parent.slug, status: "WAITING_EVENT", spawnedAtStep: 0 },
    });
    await t.runtime.cancelRun({ runId: run.id, by: "ops@example.com" });
  });

  it("spawn is a decision a fork can replay without starting its source's child again", () => {
    const decision: Decision = spawn("x", { a: 1 });
    expect(decision).toEqual({ kind: "spawn", agent: "x", input: { a: 1 } });
  });
});
