import { describe, expect, it } from "vitest";
import type { EngineContext } from "../lib/runtime/context";
import type { RunCursor } from "../lib/runtime/cursor";
import { checkPermission } from "../lib/runtime/permission-check";
import { buildRule } from "./support/contract/builders";

// Many runs of one agent that find its cached rules stale at the same moment (200 at once, after the cache's
// short trust window) share one read of the epoch, not one each; and every one of them gets the verdict.

function counting(epoch: number) {
  const reads = { epoch: 0, rules: 0 };
  const rule = buildRule({ agent: "refund-agent", tool: "payments.refund", effect: "allow" });
  const store = {
    async permissionEpoch() {
      reads.epoch++;
      await new Promise((resolve) => setImmediate(resolve)); // a read takes a turn of the event loop
      return epoch;
    },
    async listPermissionsAtEpoch() {
      reads.rules++;
      await new Promise((resolve) => setImmediate(resolve));
      return { epoch, rules: [rule] };
    },
  };
  const ctx = { store, permissionCache: new Map(), permissionReads: new Map() } as unknown as EngineContext;
  return { ctx, reads };
}

const cursor = () => ({ run: { workspaceId: "default" }, permissionEpoch: null }) as unknown as RunCursor;
const request = { agent: "refund-agent", tool: "payments.refund", args: {}, capability: "execute" as const };

describe("permission checks read the rules once for every run that finds them stale together", () => {
  it("200 first checks at once: one read of the rules", async () => {
    const { ctx, reads } = counting(7);
    const cursors = Array.from({ length: 200 }, cursor);
    const verdicts = await Promise.all(cursors.map((c) => checkPermission(ctx, c, request)));
    expect(reads).toEqual({ epoch: 0, rules: 1 });
    expect(verdicts.every((v) => v.effect === "allow")).toBe(true);
    expect(cursors.every((c) => c.permissionEpoch === 7)).toBe(true);
  });

  it("200 checks on stale rules at once: one read of the epoch, and the rules kept when it has not moved", async () => {
    const { ctx, reads } = counting(7);
    await checkPermission(ctx, cursor(), request);
    for (const cached of ctx.permissionCache.values()) cached.readAt -= 60_000; // past the trust window
    await Promise.all(Array.from({ length: 200 }, () => checkPermission(ctx, cursor(), request)));
    expect(reads).toEqual({ epoch: 1, rules: 1 });
    expect(ctx.permissionReads.size).toBe(0);
  });

  it("a failed read fails every check that shared it, and the next check reads again", async () => {
    const { ctx, reads } = counting(7);
    const failing = ctx.store.listPermissionsAtEpoch;
    ctx.store.listPermissionsAtEpoch = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error("database down");
    };
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => checkPermission(ctx, cursor(), request)));
    expect(results.every((r) => r.status === "rejected")).toBe(true);
    ctx.store.listPermissionsAtEpoch = failing;
    await checkPermission(ctx, cursor(), request);
    expect(reads.rules).toBe(1);
  });
});
