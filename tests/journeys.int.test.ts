import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { deployAgent, refundAgent } from "./support/agents";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// Whole journeys through the engine, against a real HTTP world, on each database.

describe.each(providers())("journeys [%s]", (_provider, url) => {
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  const refunder = refundAgent(uid("refund"));
  const deployer = deployAgent(uid("deploy"));

  beforeAll(async () => {
    world = await startWorld();
    t = createTestRuntime(url, { agents: [refunder, deployer], tools: worldTools(world.url) });
  });
  afterEach(() => {
    world.ledger.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await world.close();
  });

  it("completes a refund: read, refund, email, each effect exactly once", async () => {
    await grant(t.runtime, refunder);
    world.orders.set("o-1", { id: "o-1", amountCents: 2400, status: "paid" });
    const { run } = await t.runtime.startRun({
      agent: refunder.slug,
      input: { orderId: "o-1", email: "ann@example.com" },
    });
    await t.runtime.createWorker().drain();

    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(world.effects("payments")).toHaveLength(1);
    expect(world.effects("mail")).toHaveLength(1);
    const kinds = Object.fromEntries(done.state.facts.map((f) => [f.key, f.kind]));
    expect(kinds).toEqual({ order: "observation", refund: "receipt", mail: "receipt" });

    const events = await t.store.listEvents(run.id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const call = events.find((e) => e.type === "tool.call" && e.data.tool === "payments.refund")!;
    expect(call.data).toMatchObject({
      attempt: 1,
      idempotencyKey: expect.stringMatching(/^op_/),
      result: { amountCents: 2400 },
    });
    expect(call.data.latencyMs).toEqual(expect.any(Number));
    const checkpoints = await t.store.listCheckpoints(run.id);
    expect(checkpoints.length).toBeGreaterThanOrEqual(5);
    expect(checkpoints.at(-1)!.state).toEqual(done.state);
  });

  it("deploy waits for its callback; ten deliveries are applied once", async () => {
    await grant(t.runtime, deployer);
    const { run } = await t.runtime.startRun({ agent: deployer.slug, input: { migration: "0042_add_index" } });
    const worker = t.runtime.createWorker();
    await worker.drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_EVENT");

    const answers = [];
    for (let i = 0; i < 10; i++)
      answers.push(
        await t.runtime.deliverSignal(run.id, {
          type: "deploy.finished",
          dedupKey: "deploy-cb-1",
          payload: { ok: true },
        }),
      );
    expect(answers.filter((a) => !a.duplicate)).toHaveLength(1);
    expect(answers.filter((a) => a.duplicate)).toHaveLength(9);
    await worker.drain();

    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ deployed: true, callback: { ok: true } });
    expect(world.effects("deploys")).toHaveLength(1);
    const events = await t.store.listEvents(run.id);
    expect(events.filter((e) => e.type === "signal.consumed")).toHaveLength(1);
    expect(events.filter((e) => e.type === "signal.duplicate")).toHaveLength(9);
  });
});
