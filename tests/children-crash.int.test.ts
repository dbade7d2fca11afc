import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childIdempotencyKey } from "../lib/runtime/children";
import { echoAgent, spawnParentAgent } from "./support/agents";
import { expireLeases } from "./support/leases";
import { createTestRuntime, providers, uid } from "./support/runtime";
import { kill, spawnWorker } from "./support/spawn-worker";
import { startWorld, type World } from "./support/world";

// A child run survives its parent's worker being killed with SIGKILL right after the child was started and
// before the parent recorded it: a fresh worker takes the parent's step again, finds the same child by its
// derived key, and the parent completes with that child's result. Exactly one child exists.

const LEASE_MS = 30_000; // long: no stall lapses the victim's lease before its fault point; the test expires it

describe.each(providers())("child runs under SIGKILL [%s]", (_provider, url) => {
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  const child = echoAgent(uid("crash-child"));
  const parent = spawnParentAgent(uid("crash-parent"), child.slug);

  beforeAll(async () => {
    world = await startWorld(); // the crash worker's tools need a world, though these agents call none
    t = createTestRuntime(url, { agents: [parent, child] });
  });
  afterAll(async () => {
    await t.close();
    await world.close();
  });

  it("killed after-spawn: one child, and the parent completes with its result", async () => {
    const { run } = await t.runtime.startRun({
      agent: parent.slug,
      input: { tag: "t1" },
      startedBy: "ana@example.com",
    });
    const victim = spawnWorker({
      TETHER_LEASE_MS: String(LEASE_MS),
      DATABASE_URL: url,
      WORLD_URL: world.url,
      TETHER_FAULT_AT: "after-spawn",
      TETHER_FAULT_TOOL: `spawn:${child.slug}`,
      AGENTS: JSON.stringify([
        { kind: "spawn-parent", slug: parent.slug, child: child.slug },
        { kind: "echo", slug: child.slug },
      ]),
    });
    try {
      await victim.waitFor(`FAULT after-spawn spawn:${child.slug} ${run.id}`);
    } finally {
      await kill(victim.child);
    }
    // The child exists; the parent recorded nothing of it (its last commit is from before the step).
    const started = await t.db.run.findMany({ where: { spawnedByRunId: run.id } });
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ idempotencyKey: childIdempotencyKey(run.id, 0), startedBy: "ana@example.com" });
    const orphaned = await t.runtime.getRun(run.id);
    expect(orphaned.state.pending).toBeNull();
    expect(orphaned.leaseOwner).not.toBeNull();

    // Whatever the dead worker held (the parent, perhaps the child it picked up meanwhile) comes back now.
    const held = (
      await t.db.run.findMany({
        where: { id: { in: [run.id, started[0].id] }, leaseOwner: { not: null } },
        select: { id: true },
      })
    ).map((r) => r.id);
    await expireLeases(t.db, held);
    await t.runtime.createWorker({ leaseMs: 5_000 }).drain();

    const children = await t.db.run.findMany({ where: { spawnedByRunId: run.id } });
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({ id: started[0].id, status: "COMPLETED" });
    const done = await t.runtime.getRun(run.id);
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toEqual({
      runId: children[0].id,
      agent: child.slug,
      status: "COMPLETED",
      output: { echoed: { from: "t1" } },
    });
    const startedEvents = (await t.store.listEvents(run.id)).filter((e) => e.type === "child.started");
    expect(startedEvents).toHaveLength(1); // the dead step's event never committed; the retry's found the child
    expect(startedEvents[0].data).toMatchObject({ childRunId: children[0].id, created: false });
  }, 60_000);
});
