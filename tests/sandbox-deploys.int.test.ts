import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../lib/config";
import { deployAgent } from "../lib/agents";
import type { RunRecord } from "../lib/runtime";
import { deliverDeployCallback } from "../lib/runtime.server";
import type { DeployFinished } from "../lib/sandbox/callbacks";
import {
  deployFinishMsFromEnv,
  startDeployClock,
  startSandboxDeployClock,
  type DeployClock,
} from "../lib/sandbox/deploy-clock";
import { putFault, resetFaults } from "../lib/sandbox/faults";
import { startSandboxServer, type SandboxServer } from "../lib/sandbox/http-server";
import { seedSandbox } from "../lib/sandbox/seed";
import { createBuiltInTools } from "../lib/tools";
import { createTestRuntime, providers, uid } from "./support/runtime";
import { startTestSandbox, type TestSandbox } from "./support/sandbox-world";
import { until } from "./support/until";

// The deploy system finishes deploys on its own (lib/sandbox/deploy-clock.ts) and calls back, once per
// deploy; `holdDeploys` holds it; a deploy that came due while no clock ran finishes at the next one's
// first pass. Then the deploy agent end to end with nobody completing anything by hand, and its
// deploys.find when the start's answer was lost.
//
// The tests share their databases with other files (run one at a time): a clock here also finishes
// deploys earlier files left running, so every assertion names this file's own deploys and runs.

describe("deploy clock settings", () => {
  it("TETHER_SANDBOX_DEPLOY_SECONDS: seconds (default 5), off, anything else stops start-up", () => {
    expect(deployFinishMsFromEnv(loadConfig({}))).toBe(5_000);
    expect(deployFinishMsFromEnv(loadConfig({ TETHER_SANDBOX_DEPLOY_SECONDS: " 0.25 " }))).toBe(250);
    expect(deployFinishMsFromEnv(loadConfig({ TETHER_SANDBOX_DEPLOY_SECONDS: "0" }))).toBe(0);
    expect(deployFinishMsFromEnv(loadConfig({ TETHER_SANDBOX_DEPLOY_SECONDS: "OFF" }))).toBeNull();
    for (const bad of ["soon", "-1", "1e9", "5s"])
      expect(() => deployFinishMsFromEnv(loadConfig({ TETHER_SANDBOX_DEPLOY_SECONDS: bad }))).toThrow(
        /TETHER_SANDBOX_DEPLOY_SECONDS/,
      );
  });

  it("the console runs no clock with the sandbox off, or with deploys set to finish only by hand", () => {
    const opts = {
      db: () => {
        throw new Error("no database is read");
      },
      onDeployFinished: () => {},
    };
    expect(startSandboxDeployClock({ ...opts, config: loadConfig({ TETHER_SANDBOX: "0" }) })).toBeNull();
    expect(
      startSandboxDeployClock({
        ...opts,
        config: loadConfig({ TETHER_SANDBOX: "1", TETHER_SANDBOX_DEPLOY_SECONDS: "off" }),
      }),
    ).toBeNull();
    expect(() =>
      startSandboxDeployClock({
        ...opts,
        config: loadConfig({ TETHER_SANDBOX: "1", TETHER_SANDBOX_DEPLOY_SECONDS: "later" }),
      }),
    ).toThrow(/TETHER_SANDBOX_DEPLOY_SECONDS/);
  });
});

describe.each(providers())("the deploy system's clock [%s]", (_provider, url) => {
  let w: TestSandbox;
  const clocks: DeployClock[] = [];
  const clock = (opts: {
    finishAfterMs: number;
    onDeployFinished?: (event: DeployFinished) => void | Promise<void>;
  }) => {
    const started = startDeployClock({
      db: w.db,
      tickMs: 50,
      retryDelayMs: 5,
      onDeployFinished:
        opts.onDeployFinished ??
        ((event) => {
          w.deliveries.push(event);
        }),
      finishAfterMs: opts.finishAfterMs,
    });
    clocks.push(started);
    return started;
  };
  const start = async (runId = uid("run")) => {
    const res = await w.call("POST", "/deploys", { body: { migration: "0060_add_clock_index", runId } });
    expect(res.status).toBe(202);
    return res.body.deployId as string;
  };
  const status = async (deployId: string) => (await w.call("GET", `/deploys/${deployId}`)).body;
  const deliveriesOf = (deployId: string) => w.deliveries.filter((d) => d.deployId === deployId);

  beforeAll(async () => {
    w = await startTestSandbox(url);
  });
  afterEach(async () => {
    await Promise.all(clocks.splice(0).map((c) => c.stop()));
    await resetFaults(w.db);
    w.deliveries.length = 0;
  });
  afterAll(async () => {
    await w.close();
  });

  it("finishes a deploy `succeeded` once it has run long enough, and calls back once", async () => {
    const runId = uid("run");
    const deployId = await start(runId);
    // Read before any clock runs: on a loaded machine the 400 ms can pass between the start and this read.
    expect(await status(deployId)).toMatchObject({ status: "running", completedAt: null });
    const c = clock({ finishAfterMs: 400 });
    await until("the deploy calls back", () => deliveriesOf(deployId).length > 0, 10_000);
    expect(await status(deployId)).toMatchObject({ status: "succeeded", completedAt: expect.any(String) });
    const { startedAt, completedAt } = await status(deployId);
    expect(Date.parse(completedAt) - Date.parse(startedAt)).toBeGreaterThanOrEqual(400);
    await c.tick(); // two more passes, the second begun after the callback
    await c.tick();
    expect(deliveriesOf(deployId)).toEqual([
      { deployId, runId, outcome: "succeeded", migration: "0060_add_clock_index" },
    ]);
    // Finished: a completion by hand is refused and reports nothing.
    expect((await w.call("POST", `/deploys/${deployId}/complete`, { body: { outcome: "failed" } })).status).toBe(409);
    expect(deliveriesOf(deployId)).toHaveLength(1);
  });

  it("a deploy that came due while no clock ran finishes at the first pass of the next one (a restart)", async () => {
    const deployId = await start();
    await w.db.sandboxDeploy.update({ where: { id: deployId }, data: { startedAt: new Date(Date.now() - 60_000) } });
    const restarted = clock({ finishAfterMs: 30_000 });
    await until("the overdue deploy calls back", () => deliveriesOf(deployId).length > 0, 10_000);
    expect(await status(deployId)).toMatchObject({ status: "succeeded" });
    expect(await restarted.tick()).not.toContain(deployId);
    expect(deliveriesOf(deployId)).toHaveLength(1);
  });

  it("holdDeploys holds the clock; released, the deploys that came due finish", async () => {
    expect((await w.call("PUT", "/faults/deploys", { body: { holdDeploys: true } })).body).toMatchObject({
      holdDeploys: true,
    });
    const held = clock({ finishAfterMs: 0 });
    const deployId = await start();
    await held.tick(); // a pass begun after the deploy started finishes nothing while held
    expect(await held.tick()).toEqual([]);
    expect(await status(deployId)).toMatchObject({ status: "running" });
    expect(deliveriesOf(deployId)).toEqual([]);

    await w.call("PUT", "/faults/deploys", { body: { holdDeploys: false } });
    await until("the released deploy calls back", () => deliveriesOf(deployId).length > 0, 10_000);
    expect(await status(deployId)).toMatchObject({ status: "succeeded" });
  });

  it("a deploy completed by hand is the clock's no more: its callback comes as often as the hand asked, never again", async () => {
    await putFault(w.db, "deploys", { holdDeploys: true });
    const deployId = await start();
    const manual = await w.call("POST", `/deploys/${deployId}/complete`, {
      body: { outcome: "failed", deliveries: 2 },
    });
    expect(manual).toMatchObject({ status: 200, body: { status: "failed", delivered: 2 } });
    await putFault(w.db, "deploys", { holdDeploys: false });
    const c = clock({ finishAfterMs: 0 });
    await c.tick();
    await c.tick();
    expect(await status(deployId)).toMatchObject({ status: "failed" });
    expect(deliveriesOf(deployId)).toHaveLength(2);
  });

  it("two clocks on one database (two consoles) finish a deploy once", async () => {
    await putFault(w.db, "deploys", { holdDeploys: true });
    const deployId = await start();
    const both = [clock({ finishAfterMs: 0 }), clock({ finishAfterMs: 0 })];
    await putFault(w.db, "deploys", { holdDeploys: false });
    await until("the deploy calls back", () => deliveriesOf(deployId).length > 0, 10_000);
    for (let pass = 0; pass < 2; pass++) await Promise.all(both.map((c) => c.tick())); // both keep passing
    expect(deliveriesOf(deployId)).toHaveLength(1);
  });

  it("a delivery that fails is tried again; one that keeps failing leaves the deploy finished", async () => {
    const failures = new Map<string, number>();
    const flaky = (failTimes: number) => (event: DeployFinished) => {
      const seen = failures.get(event.deployId) ?? 0;
      failures.set(event.deployId, seen + 1);
      if (seen < failTimes) throw new Error("the receiver is briefly down");
      w.deliveries.push(event);
    };
    await putFault(w.db, "deploys", { holdDeploys: true });
    const recovers = await start();
    const c = clock({
      finishAfterMs: 0,
      onDeployFinished: (event) => (event.deployId === recovers ? flaky(2)(event) : flaky(10)(event)),
    });
    await putFault(w.db, "deploys", { holdDeploys: false });
    await until("the retried delivery arrives", () => deliveriesOf(recovers).length > 0, 10_000);
    expect(failures.get(recovers)).toBe(3);
    expect(deliveriesOf(recovers)).toHaveLength(1);

    const neverDelivered = await start();
    await until("the deploy finishes", async () => (await status(neverDelivered)).status === "succeeded", 10_000);
    await c.tick();
    expect(failures.get(neverDelivered)).toBe(3); // three attempts, then it is logged and left
    expect(deliveriesOf(neverDelivered)).toEqual([]);
  });
});

describe.each(providers())("deploy-agent against a deploy system that finishes on its own [%s]", (_provider, url) => {
  const agent = { ...deployAgent.definition, slug: uid("deploy-agent") };
  let t: ReturnType<typeof createTestRuntime>;
  let sandbox: SandboxServer;
  let clock: DeployClock;
  /** This file's runs: the clock also finishes other files' leftover deploys, whose callbacks go nowhere. */
  const mine = new Set<string>();
  const delivered: DeployFinished[] = [];

  const drain = () => t.runtime.createWorker().drain();
  const pending = async (runId: string) => (await t.store.findPackets({ runId, status: ["PENDING"] }))[0];
  const effects = async (runId: string) =>
    (await (await fetch(`${sandbox.url}/ledger?runId=${runId}&system=deploys`)).json()).entries as Array<{
      data: { deployId: string };
    }>;
  async function start(migration: string): Promise<RunRecord> {
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { migration, callbackTimeoutMs: 60_000 },
      startedBy: "dev@test",
    });
    mine.add(run.id);
    await drain();
    return t.runtime.getRun(run.id);
  }
  async function decide(runId: string, input: Record<string, unknown>) {
    await t.runtime.decidePacket({ packetId: (await pending(runId)).id, reviewer: "operator@test", input });
    await drain();
    return t.runtime.getRun(runId);
  }
  /** The worker, as the console's would, until the run ends. */
  async function finished(runId: string): Promise<RunRecord> {
    let run = await t.runtime.getRun(runId);
    await until(
      `run ${runId} ends`,
      async () => {
        await drain();
        run = await t.runtime.getRun(runId);
        return ["COMPLETED", "FAILED", "CANCELLED"].includes(run.status);
      },
      15_000,
    );
    return run;
  }

  beforeAll(async () => {
    t = createTestRuntime(url, {
      agents: [agent],
      tools: createBuiltInTools({ sandboxUrl: () => sandbox.url, timeoutMs: 2_000 }),
    });
    // The app's own callback (lib/runtime.server.ts): the deploy becomes the run's deploy.finished signal.
    const callback = deliverDeployCallback(t.runtime);
    const onDeployFinished = async (event: DeployFinished) => {
      if (!event.runId || !mine.has(event.runId)) return;
      delivered.push(event);
      await callback(event);
    };
    sandbox = await startSandboxServer(t.db, { onDeployFinished });
    await seedSandbox(t.db);
    for (const rule of deployAgent.defaultPermissions)
      await t.runtime.permissions.put({ ...rule, agent: agent.slug }, { by: "admin@test" });
    clock = startDeployClock({ db: t.db, finishAfterMs: 300, tickMs: 50, onDeployFinished });
  });
  afterEach(async () => {
    await resetFaults(t.db);
  });
  afterAll(async () => {
    await clock.stop();
    await sandbox.close();
    await t.close();
  });

  it("a deploy run completes with no manual step: the deploy finishes, calls back once, the agent verifies", async () => {
    const waiting = await decide((await start("0061_add_orders_region_index")).id, { decision: "approve" });
    expect(waiting.status).toBe("WAITING_EVENT");
    const done = await finished(waiting.id);
    expect(done.status).toBe("COMPLETED");
    const [deploy] = await effects(done.id);
    expect(done.state.output).toMatchObject({
      deployed: true,
      deployId: deploy.data.deployId,
      status: "succeeded",
      callbackReceived: true,
    });
    expect(delivered.filter((d) => d.runId === done.id)).toEqual([
      {
        deployId: deploy.data.deployId,
        runId: done.id,
        outcome: "succeeded",
        migration: "0061_add_orders_region_index",
      },
    ]);
    const events = await t.store.listEvents(done.id);
    expect(events.filter((e) => e.type === "signal.consumed")).toHaveLength(1);
    expect(await effects(done.id)).toHaveLength(1);
  });

  it("the start's answer is lost and a person confirms it ran without naming the deploy: the agent finds it with deploys.find", async () => {
    await putFault(t.db, "deploys", { timeoutAfterApply: 1, holdMs: 100 });
    const inDoubt = await decide((await start("0062_add_invoices_due_index")).id, { decision: "approve" });
    expect(inDoubt.status).toBe("NEEDS_ATTENTION");
    const packet = await pending(inDoubt.id);
    expect(packet).toMatchObject({ kind: "UNKNOWN_OUTCOME", tool: "deploys.run_migration" });
    const [deploy] = await effects(inDoubt.id);
    // "Check now" runs the tool's lookup (by run + migration): the person sees the deploy before answering.
    expect(await t.runtime.checkUnknownOutcome({ packetId: packet.id })).toMatchObject({
      found: true,
      receipt: deploy.data.deployId,
    });

    await decide(inDoubt.id, { decision: "happened", note: "The deploy dashboard shows it." });
    const done = await finished(inDoubt.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.facts.find((f) => f.key === "deploy")).toMatchObject({ kind: "decision" });
    expect(done.state.facts.find((f) => f.key === "deploy:found")).toMatchObject({
      kind: "observation",
      value: { deploys: [{ deployId: deploy.data.deployId, migration: "0062_add_invoices_due_index" }] },
    });
    expect(done.state.output).toMatchObject({ deployed: true, deployId: deploy.data.deployId, callbackReceived: true });
    expect(await effects(done.id)).toHaveLength(1);
  });

  it("a person says it did not run, but the deploy system shows it did: the run fails for an operator instead of reporting nothing deployed", async () => {
    await putFault(t.db, "deploys", { timeoutAfterApply: 1, holdMs: 100 });
    const inDoubt = await decide((await start("0063_add_refunds_day_index")).id, { decision: "approve" });
    expect(inDoubt.status).toBe("NEEDS_ATTENTION");
    const done = await decide(inDoubt.id, { decision: "skip", reason: "Nothing in the deploy log." });
    expect(done.status).toBe("FAILED");
    const [deploy] = await effects(done.id);
    expect(done.error).toContain(
      `A person said 0063_add_refunds_day_index did not run, but the deploy system shows ${deploy.data.deployId}`,
    );
    expect(await effects(done.id)).toHaveLength(1);
  });

  it("a person says it did not run, and the deploy system agrees: nothing was deployed", async () => {
    await putFault(t.db, "deploys", { errorRate: 1 }); // a 503: the outcome is unknown, nothing was applied
    const inDoubt = await decide((await start("0064_add_tickets_index")).id, { decision: "approve" });
    expect(inDoubt.status).toBe("NEEDS_ATTENTION");
    await putFault(t.db, "deploys", { errorRate: 0 });
    const done = await decide(inDoubt.id, { decision: "skip" });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ deployed: false, migration: "0064_add_tickets_index" });
    expect(done.state.facts.find((f) => f.key === "deploy:check")).toMatchObject({ value: { deploys: [] } });
    expect(await effects(done.id)).toEqual([]);
  });
});
