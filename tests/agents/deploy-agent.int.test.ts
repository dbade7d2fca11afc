import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployAgent } from "../../lib/agents";
import type { RunRecord } from "../../lib/runtime";
import type { DeployFinished } from "../../lib/sandbox/callbacks";
import { startSandboxServer, type SandboxServer } from "../../lib/sandbox/http-server";
import { seedSandbox } from "../../lib/sandbox/seed";
import { createBuiltInTools } from "../../lib/tools";
import { createTestRuntime, manualClock, providers, uid } from "../support/runtime";

// deploy-agent end to end against the real sandbox over HTTP: an operator approves the migration, it
// runs once (unsafe), the deploy system's completion callback is wired to runtime.deliverSignal and
// delivered twice, and the agent verifies with deploys.status. The ledger proves one migration per run.

type Entry = { system: string; action: string; data: Record<string, unknown> };

describe.each(providers())("deploy-agent [%s]", (_provider, url) => {
  const agent = { ...deployAgent.definition, slug: uid("deploy-agent") };
  const clock = manualClock();
  let t: ReturnType<typeof createTestRuntime>;
  let sandbox: SandboxServer;
  /** Off: the callback is "lost" (the deploy system reports nothing). */
  let callbacksOn = true;
  const deliveries: Array<{ duplicate: boolean }> = [];

  const get = async (path: string) => (await fetch(sandbox.url + path)).json();
  const ledger = async (runId: string): Promise<Entry[]> =>
    (await get(`/ledger?runId=${encodeURIComponent(runId)}`)).entries;
  const drain = () => t.runtime.createWorker().drain();
  const pending = async (runId: string) => (await t.store.findPackets({ runId, status: ["PENDING"] }))[0];

  async function start(input: unknown): Promise<RunRecord> {
    const { run } = await t.runtime.startRun({ agent: agent.slug, input, startedBy: "dev@test" });
    await drain();
    return t.runtime.getRun(run.id);
  }
  async function approve(run: RunRecord) {
    await t.runtime.decidePacket({
      packetId: (await pending(run.id)).id,
      reviewer: "operator@test",
      input: { decision: "approve" },
    });
    await drain();
    return t.runtime.getRun(run.id);
  }
  /** The deploy system finishes the migration and calls back `deliveries` times. */
  async function finish(deployId: string, outcome: "succeeded" | "failed", times = 2) {
    const res = await fetch(`${sandbox.url}/deploys/${deployId}/complete`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ outcome, deliveries: times }),
    });
    expect(res.status).toBe(200);
  }
  const deployIdOf = (run: RunRecord) =>
    (run.state.facts.find((f) => f.key === "deploy")!.value as { deployId: string }).deployId;

  beforeAll(async () => {
    t = createTestRuntime(url, {
      agents: [agent],
      tools: createBuiltInTools({ sandboxUrl: () => sandbox.url, timeoutMs: 2000 }),
      clock,
    });
    const onDeployFinished = async (event: DeployFinished) => {
      if (!callbacksOn || !event.runId) return;
      const { deployId, outcome, migration } = event;
      deliveries.push(
        await t.runtime.deliverSignal(event.runId, {
          type: "deploy.finished",
          dedupKey: deployId,
          payload: { deployId, outcome, migration },
        }),
      );
    };
    sandbox = await startSandboxServer(t.db, { onDeployFinished });
    await seedSandbox(t.db);
    // A runbook for the agent to cite (the seeded docs may not have one).
    const runbook = await fetch(`${sandbox.url}/docs/${uid("doc_runbook")}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        title: "Database migration runbook",
        body: "Every migration gets a snapshot first; additive migrations run any time.",
      }),
    });
    expect(runbook.status).toBe(201);
    for (const rule of deployAgent.defaultPermissions)
      await t.runtime.permissions.put({ ...rule, agent: agent.slug }, { by: "admin@test" });
  });
  afterAll(async () => {
    await sandbox.close();
    await t.close();
  });

  it("plans, waits for an operator, runs the migration once, takes the callback delivered twice once, verifies", async () => {
    const run = await start({
      migration: "0042_add_orders_customer_email_index",
      reason: "Lookups by email are slow.",
    });
    expect(run.status).toBe("WAITING_APPROVAL");
    const risk = run.state.facts.find((f) => f.key === "risk")!;
    expect(risk).toMatchObject({ kind: "inference", value: { level: "low", runbook: expect.any(String) } });
    expect(run.state.facts.find((f) => f.key === "rollback")).toMatchObject({ kind: "inference" });
    expect(run.state.plan.map((s) => s.status)).toEqual(["done", "done", "active", "pending", "pending"]);
    const packet = await pending(run.id);
    expect(packet).toMatchObject({ tool: "deploys.run_migration", queue: "operators", onExpire: "escalate:oncall" });
    expect(packet.content.impact).toBe(
      "runs migration 0042_add_orders_customer_email_index on the production database",
    );
    expect(packet.content.uncertainty).toBe("low");
    expect(packet.content.evidence.map((e) => e.key)).toEqual(["runbook", "risk", "rollback"]);
    expect(await ledger(run.id)).toEqual([]);

    const waiting = await approve(run);
    expect(waiting.status).toBe("WAITING_EVENT");
    expect(waiting.waitingFor).toBe("deploy.finished");
    const deployId = deployIdOf(waiting);
    expect(await get(`/deploys/${deployId}`)).toMatchObject({ deployId, status: "running" });

    deliveries.length = 0;
    await finish(deployId, "succeeded", 2);
    expect(deliveries.map((d) => d.duplicate).sort()).toEqual([false, true]);
    await drain();

    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({
      deployed: true,
      deployId,
      status: "succeeded",
      migration: "0042_add_orders_customer_email_index",
      callbackReceived: true,
      completedAt: expect.any(String),
    });
    expect(done.state.plan.every((s) => s.status === "done")).toBe(true);
    expect(done.state.facts.find((f) => f.key === "verification")).toMatchObject({
      kind: "observation",
      value: { status: "succeeded" },
    });
    const events = await t.store.listEvents(run.id);
    expect(events.filter((e) => e.type === "signal.consumed")).toHaveLength(1);
    expect(events.filter((e) => e.type === "signal.duplicate")).toHaveLength(1);
    const effects = await ledger(run.id);
    expect(effects.map((e) => `${e.system}.${e.action}`)).toEqual(["deploys.migrate"]);
    expect(effects[0].data).toMatchObject({ deployId });
  });

  it("fails clearly, with the rollback, when the migration failed", async () => {
    const run = await approve(await start({ migration: "0043_drop_legacy_sessions" }));
    const packetRisk = run.state.facts.find((f) => f.key === "risk")!.value as { level: string };
    expect(packetRisk.level).toBe("high");
    await finish(deployIdOf(run), "failed", 2);
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("FAILED");
    expect(done.error).toMatch(
      /Migration 0043_drop_legacy_sessions failed .*callback said failed, the deploy system says failed.*Roll back: Take a snapshot first/,
    );
    expect((await ledger(run.id)).filter((e) => e.system === "deploys")).toHaveLength(1);
  });

  it("escalates an unanswered approval to on-call, and a rejection there ends the run without deploying", async () => {
    const run = await start({ migration: "0044_rename_orders_total" });
    const packet = await pending(run.id);
    clock.advance(3600_000 + 1000);
    await drain();
    const escalated = await pending(run.id);
    expect(escalated.id).toBe(packet.id);
    expect(escalated.queue).toBe("oncall");
    expect(escalated.content.escalatedFrom).toBe("operators");
    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_APPROVAL");

    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "oncall@test",
      input: { decision: "reject", reason: "Not during the sale." },
    });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ deployed: false, migration: "0044_rename_orders_total" });
    expect((done.state.output as { reason: string }).reason).toContain("Not during the sale.");
    expect(await ledger(run.id)).toEqual([]);
  });

  it("follows a redirect to another migration", async () => {
    const run = await start({ migration: "0045_drop_orders_notes" });
    await t.runtime.decidePacket({
      packetId: (await pending(run.id)).id,
      reviewer: "operator@test",
      input: { decision: "redirect", instruction: "Run 0045_add_orders_notes_archive first instead." },
    });
    await drain();
    const second = await pending(run.id);
    expect(second.content.impact).toBe("runs migration 0045_add_orders_notes_archive on the production database");
    expect(second.content.uncertainty).toBe("low");
    const waiting = await approve(await t.runtime.getRun(run.id));
    await finish(deployIdOf(waiting), "succeeded", 1);
    await drain();
    expect((await t.runtime.getRun(run.id)).state.output).toMatchObject({
      deployed: true,
      migration: "0045_add_orders_notes_archive",
    });
    expect((await ledger(run.id)).map((e) => e.data.migration)).toEqual(["0045_add_orders_notes_archive"]);
  });

  it("checks the deploy itself when the callback never comes", async () => {
    const run = await approve(await start({ migration: "0046_add_refunds_index", callbackTimeoutMs: 60_000 }));
    expect(run.status).toBe("WAITING_EVENT");
    callbacksOn = false; // the deploy finishes, but its callback is lost
    try {
      await finish(deployIdOf(run), "succeeded", 1);
    } finally {
      callbacksOn = true;
    }
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_EVENT");
    clock.advance(60_000 + 1000);
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ deployed: true, status: "succeeded", callbackReceived: false });
    expect(await ledger(run.id)).toHaveLength(1);
  });

  it("has an example input its schema accepts", () => {
    expect(agent.input.parse(deployAgent.exampleInput)).toMatchObject({
      migration: expect.any(String),
      callbackTimeoutMs: 30 * 60_000,
    });
  });
});
