import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../lib/runtime/errors";
import type { PermissionRule } from "../lib/runtime/types";
import { buildNewPacket, createClaimedRun } from "./support/contract/builders";
import { createTestRuntime, providers, uid } from "./support/runtime";

// Concurrent writers of the same row must end in a typed AppError (CONFLICT), never a raw database
// error. These races only show on Postgres (SQLite serializes its writers); they run on both.

describe.each(providers())("store races that must end in an AppError [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  beforeAll(() => {
    t = createTestRuntime(url);
  });
  afterAll(() => t.close());

  const failures = (results: PromiseSettledResult<unknown>[]) =>
    results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
  const describeError = (e: unknown) =>
    e instanceof AppError ? `AppError ${e.code}` : `${(e as Error).name} ${(e as { code?: string }).code ?? ""}`.trim();

  // lib/store/prisma-store.ts decidePacket: the "already approved" check reads the approvers, then
  // inserts the PacketApproval row; two concurrent requests both pass the check and the loser's
  // insert hits the (packetId, approver) primary key: a raw Prisma P2002 escapes instead of CONFLICT.
  it("the same reviewer approving a four-eyes packet twice at once: one approval, the others CONFLICT", async () => {
    // A race: several rounds, so it shows on every run rather than on most.
    for (let round = 0; round < 5; round++) {
      const { run, lease } = await createClaimedRun(t.store);
      const packet = buildNewPacket(run.id, { requiredApprovals: 2 });
      await t.store.commitStep({
        lease,
        status: "WAITING_APPROVAL",
        state: run.state,
        storedEntries: run.storedEntries,
        releaseLease: true,
        createPacket: packet,
        events: [],
      });

      const results = await Promise.allSettled(
        [0, 1, 2, 3].map(() =>
          t.store.decidePacket({
            workspaceId: "default",
            packetId: packet.id,
            version: 0,
            approver: "carol",
            events: [],
          }),
        ),
      );
      await t.store.transitionRun({ runId: run.id, from: ["WAITING_APPROVAL"], to: "CANCELLED", events: [] });
      expect(failures(results).map(describeError)).toEqual([
        "AppError CONFLICT",
        "AppError CONFLICT",
        "AppError CONFLICT",
      ]);
      expect((await t.store.getPacket(packet.id, null))!.approvers).toEqual(["carol"]);
    }
  });

  const rule = (agent: string, effect: PermissionRule["effect"]) => ({
    agent,
    tool: "payments.refund",
    step: "*",
    effect,
    conditions: [],
    approvals: 1,
    onExpire: "reject",
    queue: "default",
    ttlSeconds: null,
    updatedBy: `${effect}@test`,
  });
  const put = (agent: string, effect: PermissionRule["effect"], expectedVersion?: number) =>
    t.store.putPermission(rule(agent, effect), { id: uid("perm"), auditId: uid("pchg"), expectedVersion });

  // lib/store/prisma-store.ts putPermission: `permission.update({ where: { id, version } })` loses the
  // race to a concurrent put and throws a raw Prisma P2025 (record not found) instead of CONFLICT.
  it("concurrent puts with the same expectedVersion: one wins, the others are CONFLICT", async () => {
    const agent = uid("agent");
    const first = await put(agent, "allow");
    const results = await Promise.allSettled([
      put(agent, "deny", 1),
      put(agent, "require_approval", 1),
      put(agent, "deny", 1),
    ]);
    expect(failures(results).map(describeError)).toEqual(["AppError CONFLICT", "AppError CONFLICT"]);
    expect(await t.store.listPermissionChanges({ permissionId: first.id })).toHaveLength(2);
  });

  // Same place: without expectedVersion the put is "create or replace", yet a concurrent replace
  // throws raw P2025, and a concurrent first create throws raw P2002 on (agent, tool, step).
  it("concurrent puts of one existing rule never fail with a raw database error", async () => {
    const agent = uid("agent");
    await put(agent, "allow");
    const results = await Promise.allSettled([put(agent, "deny"), put(agent, "require_approval"), put(agent, "deny")]);
    for (const error of failures(results)) expect(describeError(error)).toBe("AppError CONFLICT");
  });

  it("concurrent first puts of one new rule never fail with a raw database error", async () => {
    const agent = uid("agent");
    const results = await Promise.allSettled([put(agent, "deny"), put(agent, "require_approval"), put(agent, "allow")]);
    for (const error of failures(results)) expect(describeError(error)).toBe("AppError CONFLICT");
    const stored = (await t.store.listPermissions({ agent })).find((r) => r.agent === agent)!;
    const audit = await t.store.listPermissionChanges({ permissionId: stored.id });
    expect(audit).toHaveLength(results.filter((r) => r.status === "fulfilled").length);
  });
});
