import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { upgradeAgentVersion } from "../lib/commands/upgrade-agent-version";
import type { AgentDefinition, Decision } from "../lib/runtime";
import { createTestRuntime, expectError, providers, uid } from "./support/runtime";

// A run keeps the agent version it started with until it ends. Several versions of one agent run side by
// side in one worker; new runs take the newest. A run whose version is no longer loaded parks on a packet
// ("version X is gone: upgrade to Y, or cancel") instead of failing; an operator upgrades one run or every
// run of a version in one audited action.

describe.each(providers())("agent versions [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  beforeAll(() => {
    t = createTestRuntime(url);
  });
  afterAll(async () => {
    await t.close();
  });
  const drain = () => t.runtime.createWorker().drain();
  const go = (runId: string) => t.runtime.deliverSignal(runId, { type: "go", dedupKey: uid("go"), payload: {} });

  /** Version `version` of one agent: waits for a "go" signal, then completes saying which version finished. */
  function version(slug: string, version: string, calls: string[]): AgentDefinition {
    return {
      slug,
      version,
      label: `v${version}`,
      name: slug,
      description: "waits, then completes",
      instructions: `Version ${version}: wait for go, then complete.`,
      input: z.unknown(),
      tools: [],
      policy: {
        async decide({ state, instructions }) {
          calls.push(`${state.input as string}@${version}`);
          const decision: Decision =
            state.step === 0
              ? { kind: "wait_event", eventType: "go" }
              : { kind: "complete", output: { finishedBy: version, instructions: instructions[0] } };
          return { decision };
        },
      },
    };
  }

  it("runs two versions side by side in one worker: each run finishes on the version it started with, new runs take the newest", async () => {
    const slug = uid("sidebyside");
    const calls: string[] = [];
    t.runtime.context.agents.set(slug, version(slug, "1", calls));
    const { run: old } = await t.runtime.startRun({ agent: slug, input: "old" });
    await drain();
    t.runtime.context.agents.add(version(slug, "2", calls)); // a deployment that keeps version 1 loaded beside 2
    const { run: fresh } = await t.runtime.startRun({ agent: slug, input: "fresh" });
    expect(fresh.agentVersion).toBe("2");
    await drain();
    expect((await t.runtime.getRun(old.id)).status).toBe("WAITING_EVENT");

    await go(old.id);
    await go(fresh.id);
    await drain();
    expect(await t.runtime.getRun(old.id)).toMatchObject({
      status: "COMPLETED",
      agentVersion: "1",
      state: { output: { finishedBy: "1", instructions: "Version 1: wait for go, then complete." } },
    });
    expect(await t.runtime.getRun(fresh.id)).toMatchObject({
      status: "COMPLETED",
      agentVersion: "2",
      state: { output: { finishedBy: "2" } },
    });
    expect(calls.filter((c) => c.startsWith("old@"))).toEqual(["old@1", "old@1"]); // version 2 never decided for the old run
    expect(calls.filter((c) => c.startsWith("fresh@"))).toEqual(["fresh@2", "fresh@2"]);
  });

  it("parks a run whose version is gone on a packet, and continues it on the newest once the packet is approved", async () => {
    const slug = uid("gone");
    const calls: string[] = [];
    t.runtime.context.agents.set(slug, version(slug, "1", calls));
    const { run } = await t.runtime.startRun({ agent: slug, input: "r", startedBy: "starter@example.com" });
    await drain();
    t.runtime.context.agents.set(slug, version(slug, "2", calls)); // a deployment that dropped version 1
    await go(run.id);
    await drain();

    const parked = await t.runtime.getRun(run.id);
    expect(parked).toMatchObject({ status: "NEEDS_ATTENTION", agentVersion: "1" });
    expect(calls).toEqual(["r@1"]); // version 2 decided nothing for it, and nothing failed
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    expect(packet).toMatchObject({
      kind: "VERSION",
      args: { slug, from: "1", upgradeTo: "2" },
      content: { impact: `version 1 of ${slug} is gone: upgrade to 2 (v2), or cancel`, options: ["approve", "reject"] },
    });
    expect((await t.store.listEvents(run.id)).find((e) => e.type === "agent.version_gone")?.data).toEqual({
      pinned: "1",
      loaded: "2",
      packetId: packet.id,
    });
    expect((await t.runtime.recoveryView(run.id)).safeNext).toEqual([
      expect.objectContaining({ action: "decide_packet", description: expect.stringContaining("is gone") }),
    ]);
    await expectError(
      t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "ops@example.com",
        input: { decision: "edit", args: {} },
      }),
      "INVALID_INPUT",
    );

    await t.runtime.upgradeRun({ runId: run.id, by: "ops@example.com" }); // the upgrade is the packet's approval
    await drain();
    const done = await t.runtime.getRun(run.id);
    // The signal delivered while it was parked still counts: what it waited on was kept aside.
    expect(done).toMatchObject({
      status: "COMPLETED",
      agentVersion: "2",
      state: {
        agent: { version: "2" },
        output: { finishedBy: "2", instructions: "Version 2: wait for go, then complete." },
      },
    });
    expect(await t.store.getPacket(packet.id, null)).toMatchObject({
      status: "APPROVED",
      decidedBy: "ops@example.com",
    });
    expect((await t.store.listEvents(run.id)).find((e) => e.type === "run.upgraded")?.data).toEqual({
      by: "ops@example.com",
      from: "1",
      to: "2",
      packetId: packet.id,
    });
    await expectError(t.runtime.upgradeRun({ runId: run.id, by: "ops@example.com" }), "CONFLICT");
  });

  it("cancels a run whose version is gone when its packet is rejected", async () => {
    const slug = uid("gone-cancel");
    t.runtime.context.agents.set(slug, version(slug, "1", []));
    const { run } = await t.runtime.startRun({ agent: slug, input: "r" });
    await drain();
    t.runtime.context.agents.set(slug, version(slug, "2", []));
    await go(run.id);
    await drain();
    const [packet] = await t.store.findPackets({ runId: run.id, kind: "VERSION" });
    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "ops@example.com",
      input: { decision: "reject", reason: "obsolete" },
    });
    await drain();
    expect(await t.runtime.getRun(run.id)).toMatchObject({
      status: "CANCELLED",
      agentVersion: "1",
      error: expect.stringMatching(/cancelled by ops@example.com .* gone: obsolete/),
    });
  });

  it("upgrades every run of a version in one audited action, skipping a run a worker holds", async () => {
    const slug = uid("bulk");
    const calls: string[] = [];
    t.runtime.context.agents.set(slug, version(slug, "1", calls));
    const runs = await Promise.all(
      ["a", "b", "c"].map(async (input) => (await t.runtime.startRun({ agent: slug, input })).run),
    );
    await drain(); // all three wait for "go" on version 1
    const { run: held } = await t.runtime.startRun({ agent: slug, input: "held" });
    const claim = await t.store.claimRun({ owner: "busy-worker", now: new Date(), leaseMs: 60_000, runId: held.id });
    expect(claim?.run.id).toBe(held.id);
    t.runtime.context.agents.add(version(slug, "2", calls));
    await expectError(t.runtime.upgradeVersion({ slug, version: "2", by: "ops@example.com" }), "CONFLICT"); // the newest has nowhere to go

    const result = await t.runtime.upgradeVersion({ slug, version: "1", by: "ops@example.com", via: "console" });
    expect(result.upgraded.sort()).toEqual(runs.map((r) => r.id).sort());
    expect(result.skipped).toEqual([{ runId: held.id, reason: expect.stringContaining("worker is running the run") }]);
    expect(result).toMatchObject({ slug, from: "1", to: "2" });
    const audit = await t.db.auditLog.findMany({
      where: { action: "runs.upgrade", target: { in: runs.map((r) => r.id) } },
    });
    expect(audit).toHaveLength(3);
    for (const row of audit)
      expect(JSON.parse(row.data as string)).toMatchObject({
        from: "1",
        to: "2",
        via: "console",
        bulk: expect.stringMatching(/^upg_/),
      });
    expect(new Set(audit.map((row) => JSON.parse(row.data as string).bulk)).size).toBe(1); // one action

    await drain(); // queued by the upgrade, each waits for "go" again, now on version 2
    for (const r of runs)
      expect(await t.runtime.getRun(r.id)).toMatchObject({ status: "WAITING_EVENT", agentVersion: "2" });
    for (const r of runs) await go(r.id);
    await drain();
    for (const r of runs)
      expect(await t.runtime.getRun(r.id)).toMatchObject({
        status: "COMPLETED",
        state: { output: { finishedBy: "2" } },
      });
    expect((await t.runtime.getRun(held.id)).agentVersion).toBe("1");
  });

  it("the bulk upgrade command writes one audit row for the action, with what it moved and skipped", async () => {
    const slug = uid("bulk-audit");
    t.runtime.context.agents.set(slug, version(slug, "1", []));
    const { run } = await t.runtime.startRun({ agent: slug, input: "r" });
    await drain();
    t.runtime.context.agents.set(slug, version(slug, "2", [])); // version 1 gone: the waiting run is moved without a packet
    const result = await upgradeAgentVersion(
      { db: t.db, runtime: t.runtime },
      { slug, version: "1", by: "ops@example.com", via: "token:ci" },
    );
    expect(result.upgraded).toEqual([run.id]);
    const row = await t.db.auditLog.findFirstOrThrow({
      where: { action: "agents.upgrade_version", target: `${slug}@1` },
    });
    expect(row.actor).toBe("ops@example.com");
    expect(JSON.parse(row.data)).toEqual({ to: "2", upgraded: [run.id], skipped: [], via: "token:ci" });
    await go(run.id);
    await drain();
    expect(await t.runtime.getRun(run.id)).toMatchObject({ status: "COMPLETED", agentVersion: "2" });
  });

  it("a run on the newest version cannot be upgraded", async () => {
    const slug = uid("current");
    t.runtime.context.agents.set(slug, version(slug, "1", []));
    const { run } = await t.runtime.startRun({ agent: slug, input: {} });
    await expectError(t.runtime.upgradeRun({ runId: run.id, by: "ops@example.com" }), "CONFLICT");
    expect((await t.runtime.getRun(run.id)).status).toBe("QUEUED");
  });
});
