import { z } from "zod";
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../lib/runtime";
import { scriptedAgent } from "./support/agents";
import { createTestRuntime, providers, uid } from "./support/runtime";

// A read's result is written only while the permissions it was checked under still hold. The check may
// rest on rules this process read a moment ago (it does not read the epoch before every step): a rule
// revoked by another process after the check makes the step's commit write nothing, and the step is
// checked again under the new rule.

describe.each(providers())("a read whose permission is revoked before its result commits [%s]", (_provider, url) => {
  it("writes no result; the run checks again, is denied, and the read is not made a second time", async () => {
    const admin = createTestRuntime(url); // another process's engine: its changes do not touch the worker's cache
    let calls = 0;
    let revoke: (() => Promise<void>) | null = null;
    const readTool: ToolDefinition<{ id: string }> = {
      name: uid("records.get"),
      description: "reads a record",
      capability: "read",
      semantics: "pure-read",
      input: z.object({ id: z.string() }),
      impact: ({ id }) => `read ${id}`,
      run: async ({ id }) => {
        calls++;
        const go = revoke;
        revoke = null;
        await go?.(); // revoked while the call is in flight: after the check, before the commit
        return { id, secret: "s3cret" };
      },
    };
    const agent = scriptedAgent(
      uid("fence-read"),
      [readTool.name],
      [{ kind: "call", tool: readTool.name, args: { id: "r1" }, resultKey: "record", evidence: [] }],
    );
    const worker = createTestRuntime(url, { agents: [agent], tools: [readTool] });
    try {
      const rule = await admin.runtime.permissions.put(
        { agent: agent.slug, tool: readTool.name, effect: "allow" },
        { by: "admin@test" },
      );
      revoke = async () => {
        await admin.runtime.permissions.put(
          { agent: agent.slug, tool: readTool.name, effect: "deny" },
          { by: "admin@test", expectedVersion: rule.version },
        );
      };
      const { run } = await worker.runtime.startRun({ agent: agent.slug, input: {} });
      await worker.runtime.createWorker().drain();

      expect(revoke).toBeNull(); // the rule was revoked during the first call
      expect(calls).toBe(1);
      const done = await worker.runtime.getRun(run.id);
      expect(done.status).toBe("COMPLETED");
      expect(done.state.facts.filter((f) => f.key === "record")).toEqual([]);
      const events = await worker.store.listEvents(run.id);
      expect(events.filter((e) => e.type === "permission.checked").map((e) => e.data.effect)).toEqual(["deny"]);
      expect(events.filter((e) => e.type === "tool.call")).toEqual([]);
      expect(JSON.stringify(events)).not.toContain("s3cret");
    } finally {
      await worker.close();
      await admin.close();
    }
  });
});
