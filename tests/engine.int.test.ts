import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolError, type ToolDefinition } from "../lib/runtime";
import { deployAgent, refundAgent, scriptedAgent } from "./support/agents";
import { createTestRuntime, grant, manualClock, providers, uid, expectError } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// The engine's behaviour around bad input, waiting, retries, leases and cancellation.

describe.each(providers())("engine [%s]", (_provider, url) => {
  let world: World;
  const clock = manualClock();
  let t: ReturnType<typeof createTestRuntime>;
  const tools = () => worldTools(world.url);

  beforeAll(async () => {
    world = await startWorld();
    t = createTestRuntime(url, { clock, tools: tools() });
  });
  afterEach(() =>
    Object.assign(world.faults, { timeoutAfterApply: 0, failBeforeApply: 0, failReads: 0, only: undefined }),
  );
  afterAll(async () => {
    await t.close();
    await world.close();
  });

  function register<T extends { slug: string }>(agent: T): T {
    t.runtime.context.agents.set(agent.slug, agent as never);
    return agent;
  }
  const drain = () => t.runtime.createWorker().drain();

  it("refuses to start a run for an unknown agent or with input that fails the agent's schema", async () => {
    const agent = register(refundAgent(uid("refund")));
    await expectError(t.runtime.startRun({ agent: "no-such-agent", input: {} }), "NOT_FOUND");
    const error = await expectError(t.runtime.startRun({ agent: agent.slug, input: { orderId: 7 } }), "INVALID_INPUT");
    expect(Object.keys(error.fieldErrors)).toEqual(expect.arrayContaining(["orderId", "email"]));
    await expectError(t.runtime.startRun({ agent: "" as string, input: {} }), "INVALID_INPUT");
    expect(await t.runtime.findRuns({ agentSlug: agent.slug })).toEqual([]);
  });

  it("an inference the policy records never takes the place of what a tool returned: it is kept beside it, and the policy is told", async () => {
    const orderId = uid("ord");
    world.orders.set(orderId, { id: orderId, amountCents: 5_000, status: "paid" });
    const agent = register(
      scriptedAgent(
        uid("script"),
        ["orders.get"],
        [
          { kind: "call", tool: "orders.get", args: { orderId }, resultKey: "order", evidence: [] },
          {
            kind: "record",
            facts: [
              { key: "order", value: { amountCents: 1 } },
              { key: "guess", value: 1 },
            ],
          },
          ({ state }) => ({ kind: "complete", output: state.observations.at(-1)?.message ?? null }),
        ],
      ),
    );
    await grant(t.runtime, agent);
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.facts.filter((f) => f.key === "order").map((f) => f.kind)).toEqual(["observation"]);
    expect(done.state.facts.find((f) => f.key === "order:inference")).toMatchObject({
      kind: "inference",
      value: { amountCents: 1 },
    });
    expect(done.state.facts.find((f) => f.key === "guess")).toMatchObject({ kind: "inference", value: 1 }); // a free key is taken as asked
    expect(done.state.observations.at(-1)).toMatchObject({
      kind: "key_refused",
      data: { factKey: "order:inference", requestedKey: "order" },
    });
    expect(done.state.output).toMatch(/kept under "order:inference": that key holds an observation of orders\.get/);
  });

  it("the same idempotency key starts one run", async () => {
    const agent = register(refundAgent(uid("refund")));
    const key = uid("key");
    const first = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId: "o", email: "a@example.com" },
      idempotencyKey: key,
    });
    const again = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId: "o", email: "a@example.com" },
      idempotencyKey: key,
    });
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ created: false, run: { id: first.run.id } });
  });

  it("an unknown tool or arguments failing the tool's schema are fed back to the agent, never executed", async () => {
    const agent = register(
      scriptedAgent(
        uid("script"),
        ["payments.refund"],
        [
          { kind: "call", tool: "payments.teleport", args: {}, evidence: [] },
          { kind: "call", tool: "payments.refund", args: { orderId: "o", amountCents: "lots" }, evidence: [] },
          ({ state }) => ({ kind: "complete", output: state.observations.map((o) => o.message) }),
        ],
      ),
    );
    await grant(t.runtime, agent);
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toEqual([
      expect.stringMatching(/unknown tool payments.teleport/),
      expect.stringMatching(/do not match payments.refund/),
    ]);
    expect(await t.store.listIntents(run.id)).toEqual([]);
    const rejected = (await t.store.listEvents(run.id)).filter((e) => e.type === "tool.rejected");
    expect(rejected.map((e) => e.data.code)).toEqual(["UNKNOWN_TOOL", "INVALID_ARGS"]);
    expect(rejected[1].data.fieldErrors).toHaveProperty("amountCents");
  });

  it("a run that keeps failing stops instead of looping", async () => {
    const agent = register(
      scriptedAgent(uid("script"), [], Array(10).fill({ kind: "call", tool: "nope", args: {}, evidence: [] })),
    );
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    expect(await t.runtime.getRun(run.id)).toMatchObject({ status: "FAILED", error: "3 tool errors in a row" });
  });

  it("a tool without a permission is denied (least authority), with the reason in the trace", async () => {
    const agent = register(refundAgent(uid("refund")));
    await t.runtime.permissions.put({ agent: agent.slug, tool: "orders.get", effect: "allow" }, { by: "admin" });
    world.orders.set("o-deny", { id: "o-deny", amountCents: 500, status: "paid" });
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId: "o-deny", email: "a@example.com" },
    });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.state.output).toMatchObject({ refunded: false, why: expect.stringMatching(/no permission grants/) });
    expect(world.effects("payments").filter((e) => e.runId === run.id)).toHaveLength(0);
    const checks = (await t.store.listEvents(run.id)).filter((e) => e.type === "permission.checked");
    expect(checks.map((e) => e.data.effect)).toEqual(["allow", "deny"]);
  });

  it("a durable timer sleeps for days and resumes on time after a restart, not before", async () => {
    const agent = register(
      scriptedAgent(
        uid("sleeper"),
        [],
        [
          { kind: "sleep", durationMs: 3 * 86_400_000 },
          { kind: "complete", output: "woke" },
        ],
      ),
    );
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    expect(await t.runtime.getRun(run.id)).toMatchObject({ status: "SLEEPING", wakeAt: expect.any(Date) });

    // A restart: a new process (new client, new runtime) with the same database.
    const restarted = createTestRuntime(url, { clock, agents: [agent], tools: tools() });
    clock.advance(2 * 86_400_000);
    await restarted.runtime.createWorker().drain();
    expect((await restarted.runtime.getRun(run.id)).status).toBe("SLEEPING");
    clock.advance(86_400_000 + 1000);
    await restarted.runtime.createWorker().drain();
    expect(await restarted.runtime.getRun(run.id)).toMatchObject({ status: "COMPLETED", state: { output: "woke" } });
    const fired = (await restarted.store.listEvents(run.id)).find((e) => e.type === "timer.fired");
    expect(fired!.data.lateMs).toBeGreaterThanOrEqual(0);
    await restarted.close();
  });

  it("waiting for an event times out explicitly when nothing arrives", async () => {
    const agent = register(deployAgent(uid("deploy")));
    await grant(t.runtime, agent);
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { migration: "m1" } });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_EVENT");
    clock.advance(3_600_000 + 1);
    await drain();
    expect(await t.runtime.getRun(run.id)).toMatchObject({ status: "FAILED", error: "the deploy never reported back" });
  });

  it("a signal for an unknown run or without a dedup key is refused", async () => {
    await expectError(t.runtime.deliverSignal("run_nope", { type: "x", dedupKey: "k" }), "NOT_FOUND");
    const agent = register(deployAgent(uid("deploy")));
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { migration: "m1" } });
    await expectError(t.runtime.deliverSignal(run.id, { type: "x" }), "INVALID_INPUT");
    expect(await t.store.listSignals(run.id)).toEqual([]);
  });

  it("idempotent: a timeout after the effect applied is retried with the same key — no second refund", async () => {
    const agent = register(refundAgent(uid("refund")));
    await grant(t.runtime, agent);
    world.orders.set("o-retry", { id: "o-retry", amountCents: 900, status: "paid" });
    world.faults.timeoutAfterApply = 1;
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId: "o-retry", email: "a@example.com" },
    });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("COMPLETED");
    expect(world.effects("payments").filter((e) => e.runId === run.id)).toHaveLength(1);
    const calls = (await t.store.listEvents(run.id)).filter(
      (e) => e.type === "tool.call" && e.data.tool === "payments.refund",
    );
    expect(calls.map((c) => [c.data.attempt, c.data.errorClass ?? "ok"])).toEqual([
      [1, "network"],
      [2, "ok"],
    ]);
    expect(new Set(calls.map((c) => c.data.idempotencyKey)).size).toBe(1);
  });

  it("reconcilable: a timeout after the mail went out is found by lookup — no second email", async () => {
    const agent = register(refundAgent(uid("refund")));
    await grant(t.runtime, agent);
    world.orders.set("o-mail", { id: "o-mail", amountCents: 900, status: "paid" });
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId: "o-mail", email: "a@example.com" },
    });
    world.faults.timeoutAfterApply = 1;
    world.faults.only = "mail";
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("COMPLETED");
    expect(world.effects("mail").filter((e) => e.runId === run.id)).toHaveLength(1);
    expect((await t.store.listEvents(run.id)).some((e) => e.type === "effect.lookup" && e.data.found === true)).toBe(
      true,
    );
  });

  /** A reconcilable "send" whose first request times out while the effect lands a moment later (still in flight). */
  function lateLandingSender(opts: { lookupFails?: boolean }) {
    const applied = new Map<string, { messageId: string }>();
    let calls = 0;
    const tool: ToolDefinition = {
      name: `late.send.${uid("t")}`,
      description: "sends; a timed-out request still lands",
      capability: "execute",
      semantics: "reconcilable",
      input: z.object({ to: z.string() }),
      impact: ({ to }) => `sends to ${to}`,
      async run(_args, ctx) {
        calls++;
        if (calls === 1) {
          setTimeout(() => applied.set(ctx.operationId, { messageId: `msg-${calls}` }), 5); // lands after the client gave up
          throw new ToolError("timeout", "no answer in time");
        }
        applied.set(`${ctx.operationId}#${calls}`, { messageId: `msg-${calls}` }); // a second send is a second message
        return { messageId: `msg-${calls}` };
      },
      async lookup(_args, ctx) {
        if (opts.lookupFails) throw new Error("sent folder unreachable");
        return applied.get(ctx.operationId) ?? null;
      },
    };
    return { tool, applied, calls: () => calls };
  }

  it("reconcilable: a miss right after a timeout is looked up again before any second call — the late effect is found", async () => {
    const sender = lateLandingSender({});
    t.runtime.context.tools.set(sender.tool.name, sender.tool);
    const agent = register(
      scriptedAgent(
        uid("late"),
        [sender.tool.name],
        [{ kind: "call", tool: sender.tool.name, args: { to: "a@example.com" }, evidence: [] }],
      ),
    );
    await grant(t.runtime, agent);
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("COMPLETED");
    expect(sender.calls()).toBe(1);
    expect([...sender.applied.keys()]).toHaveLength(1);
    const lookups = (await t.store.listEvents(run.id))
      .filter((e) => e.type === "effect.lookup")
      .map((e) => e.data.found);
    expect(lookups).toEqual([false, true]);
  });

  it("reconcilable: a lookup that keeps failing proves nothing — no second call; a person decides", async () => {
    const sender = lateLandingSender({ lookupFails: true });
    t.runtime.context.tools.set(sender.tool.name, sender.tool);
    const agent = register(
      scriptedAgent(
        uid("blind"),
        [sender.tool.name],
        [{ kind: "call", tool: sender.tool.name, args: { to: "a@example.com" }, evidence: [] }],
      ),
    );
    await grant(t.runtime, agent);
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("NEEDS_ATTENTION");
    expect(sender.calls()).toBe(1);
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    expect(packet).toMatchObject({ kind: "UNKNOWN_OUTCOME", tool: sender.tool.name });
  });

  it("unsafe: an unknown outcome goes to NEEDS_ATTENTION; a person's answer resolves it, retry included", async () => {
    const agent = register(deployAgent(uid("deploy")));
    await grant(t.runtime, agent);
    world.faults.timeoutAfterApply = 1;
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { migration: "m-unsafe" } });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("NEEDS_ATTENTION");
    const deploys = () => world.effects("deploys").filter((e) => e.runId === run.id);
    expect(deploys()).toHaveLength(1); // applied once, and not repeated blindly
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    expect(packet).toMatchObject({
      kind: "UNKNOWN_OUTCOME",
      queue: "attention",
      content: { options: ["happened", "retry", "skip", "redirect"] },
    });
    await expectError(
      t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "ops@example.com",
        input: { decision: "edit", args: {} },
      }),
      "INVALID_INPUT",
    );

    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "ops@example.com",
      input: { decision: "happened", note: "deploy log checked" },
    });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_EVENT");
    expect(deploys()).toHaveLength(1);
    const [intent] = await t.store.listIntents(run.id);
    expect(intent.status).toBe("RESOLVED");
    const view = await t.runtime.recoveryView(run.id);
    expect(view.mayHaveHappened).toEqual([]);
  });

  it("two workers race for one run: one wins; the loser's stale-epoch write is refused", async () => {
    const agent = register(scriptedAgent(uid("race"), [], [{ kind: "record", facts: [{ key: "k", value: 1 }] }]));
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    const claims = await Promise.all([
      t.store.claimRun({ owner: "w1", now: clock.now(), leaseMs: 1000, runId: run.id }),
      t.store.claimRun({ owner: "w2", now: clock.now(), leaseMs: 1000, runId: run.id }),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const winner = claims.find(Boolean)!;
    clock.advance(1001); // the winner stalls past its lease; another worker takes over
    const taker = await t.store.claimRun({ owner: "w3", now: clock.now(), leaseMs: 1000, runId: run.id });
    expect(taker!.lease.epoch).toBe(winner.lease.epoch + 1);
    await expectError(
      t.store.commitStep({
        lease: winner.lease,
        status: "RUNNING",
        state: winner.run.state,
        storedEntries: winner.run.storedEntries,
        events: [{ type: "x", step: 0, data: {} }],
      }),
      "LEASE_LOST",
    );
    expect((await t.store.listEvents(run.id)).some((e) => e.type === "x")).toBe(false);
    await t.store.releaseLease(taker!.lease);
  });

  it("cancel fences out the worker holding the run", async () => {
    const agent = register(scriptedAgent(uid("cancel"), [], [{ kind: "record", facts: [{ key: "k", value: 1 }] }]));
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    const claim = await t.store.claimRun({ owner: "w1", now: clock.now(), leaseMs: 60_000, runId: run.id });
    await t.runtime.cancelRun({ runId: run.id, by: "ops@example.com", reason: "wrong customer" });
    await expectError(
      t.store.commitStep({
        lease: claim!.lease,
        status: "RUNNING",
        state: claim!.run.state,
        storedEntries: claim!.run.storedEntries,
        events: [],
      }),
      "LEASE_LOST",
    );
    expect((await t.runtime.getRun(run.id)).status).toBe("CANCELLED");
    await expectError(t.runtime.cancelRun({ runId: run.id, by: "ops@example.com" }), "RUN_NOT_WAITING");
  });

  it("a malformed stored state is refused with a typed error, not reinterpreted", async () => {
    const agent = register(scriptedAgent(uid("bad"), [], []));
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await t.db.run.update({
      where: { id: run.id },
      data: { state: JSON.stringify({ schemaVersion: 2, facts: "nope" }) },
    });
    await expectError(t.runtime.getRun(run.id), "INVALID_STATE");
    await drain(); // a worker that meets it fails that run and goes on; the raw state is kept
    const row = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row).toMatchObject({
      status: "FAILED",
      error: expect.stringMatching(/unreadable state/),
      state: JSON.stringify({ schemaVersion: 2, facts: "nope" }),
    });
    const listed = (await t.runtime.findRuns({ agentSlug: agent.slug })).find((r) => r.id === run.id);
    expect(listed).toMatchObject({ status: "FAILED", stateError: expect.stringMatching(/state/) }); // lists still work
  });

  it("clock readings and random ids the policy uses are journaled with the step", async () => {
    const agent = register(
      scriptedAgent(
        uid("journal"),
        [],
        [
          ({ now, randomId }) => ({
            kind: "record",
            facts: [{ key: "ticket", value: { id: randomId(), at: now().toISOString() } }],
          }),
        ],
      ),
    );
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    const done = await t.runtime.getRun(run.id);
    const ticket = done.state.facts.find((f) => f.key === "ticket")!;
    expect(ticket.kind).toBe("inference");
    expect(Object.values(done.state.journal)).toEqual(
      expect.arrayContaining([(ticket.value as { id: string }).id, (ticket.value as { at: string }).at]),
    );
  });

  it("forks a new run from a past checkpoint", async () => {
    const agent = register(
      scriptedAgent(
        uid("fork"),
        [],
        [
          { kind: "record", facts: [{ key: "a", value: 1 }] },
          { kind: "record", facts: [{ key: "b", value: 2 }] },
        ],
      ),
    );
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    const checkpoints = await t.store.listCheckpoints(run.id);
    const afterFirst = checkpoints.find((c) => c.state.facts.length === 1)!;
    const fork = await t.runtime.forkRun({ runId: run.id, checkpointSeq: afterFirst.seq });
    expect(fork).toMatchObject({ parentRunId: run.id, status: "QUEUED" });
    expect(fork.state.facts.map((f) => f.key)).toEqual(["a"]);
  });
});
