import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refundAgent } from "../lib/agents";
import { exportBackup } from "../lib/backup/export";
import { openBackupSource, replayAgentRuns, replaySummary, type ReplayReport, type RunReplay } from "../lib/replay";
import { replayCommand } from "../lib/replay/cli";
import type { RunRecord } from "../lib/runtime";
import { startSandboxServer, type SandboxServer } from "../lib/sandbox/http-server";
import { seedSandbox } from "../lib/sandbox/seed";
import type { DefinedAgent } from "../lib/sdk";
import { createBuiltInTools } from "../lib/tools";
import { createTestRuntime, expectError, providers, uid } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";

// Replay: real runs of the refund agent are recorded (the built-in tools over HTTP against the sandbox
// world, a person deciding its gates), then replayed offline through the current code — unchanged, and
// with its approval threshold changed — from the store and from an exported backup file.

// The recorded runs' calls to the sandbox world: a loaded machine may stall one for seconds, and a call
// that timed out would record a different run (a retry, or a refund of unknown outcome) than the test means.
const SANDBOX_CALL_MS = 30_000;

describe.each(providers())("replay [%s]", (_provider, url) => {
  const slug = uid("refund-agent"); // its own slug: its own permissions and runs
  const agent: DefinedAgent = {
    ...refundAgent,
    definition: { ...refundAgent.definition, slug },
    defaultPermissions: refundAgent.defaultPermissions.map((rule) => ({ ...rule, agent: slug })),
  };
  let t: ReturnType<typeof createTestRuntime>;
  let sandbox: SandboxServer;
  const runs: Record<"small" | "approved" | "rejected" | "edited", RunRecord> = {} as never;
  // Declarations only: a replay never calls them (the sandbox is closed before any replay would reach it).
  const tools = createBuiltInTools({ sandboxUrl: "http://127.0.0.1:9/replay-must-not-call", timeoutMs: 100 });

  async function record(amountCents: number, review?: Record<string, unknown>): Promise<RunRecord> {
    const order = await createSandboxOrder(t.db, { amountCents });
    const { run } = await t.runtime.startRun({
      agent: slug,
      input: { orderId: order.id, reason: "Arrived broken." },
      startedBy: "support@test",
    });
    await t.runtime.createWorker().drain();
    if (review) {
      const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
      await t.runtime.decidePacket({ packetId: packet.id, reviewer: "reviewer@test", input: review });
      await t.runtime.createWorker().drain();
    }
    return t.runtime.getRun(run.id);
  }

  /** The agent with its approval threshold moved from $100 to $500: a $240 refund no longer asks anyone. */
  const withThreshold = (cents: number): DefinedAgent => ({
    ...agent,
    defaultPermissions: agent.defaultPermissions.map((rule) =>
      rule.tool !== "payments.refund"
        ? rule
        : {
            ...rule,
            conditions: rule.conditions?.map((c) => (c.path === "amountCents" ? { ...c, value: cents } : c)),
          },
    ),
  });

  const replay = (
    definition: DefinedAgent,
    runIds: string[],
    opts: { source?: typeof t.store; allow?: string[] } = {},
  ) =>
    replayAgentRuns({
      source: opts.source ?? t.store,
      agent: definition,
      tools,
      selection: { runIds },
      allow: opts.allow,
    });
  const byRun = (report: ReplayReport) =>
    Object.fromEntries(report.runs.map((r) => [r.runId, r])) as Record<string, RunReplay>;

  beforeAll(async () => {
    t = createTestRuntime(url, {
      agents: [agent.definition],
      tools: createBuiltInTools({ sandboxUrl: () => sandbox.url, timeoutMs: SANDBOX_CALL_MS }),
    });
    sandbox = await startSandboxServer(t.db);
    await seedSandbox(t.db);
    for (const rule of agent.defaultPermissions) await t.runtime.permissions.put(rule, { by: "admin@test" });
    runs.small = await record(4_000);
    runs.approved = await record(24_000, { decision: "approve" });
    runs.rejected = await record(30_000, { decision: "reject", reason: "The customer already got a replacement." });
    runs.edited = await record(26_000, { decision: "redirect", instruction: "Offer store credit instead." });
    await sandbox.close(); // from here on nothing can reach the world: the replays are offline
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  it("recorded what the replays are compared with: runs that completed, three of them past a person's decision", () => {
    expect(Object.values(runs).map((r) => r.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED", "COMPLETED"]);
    expect(runs.approved.state.output).toMatchObject({ refunded: true, notified: true });
    expect(runs.rejected.state.output).toMatchObject({ refunded: false });
    expect(runs.edited.state.output).toMatchObject({ storeCredit: { amountCents: 26_000 } });
  });

  it("the unchanged agent replays every run clean, gated runs from the recorded decisions", async () => {
    const ids = Object.values(runs).map((r) => r.id);
    const report = await replay(agent, ids);
    expect(report.runs.map((r) => [r.runId, r.verdict, r.replayedStatus])).toEqual(
      ids.map((id) => [id, "same", "COMPLETED"]),
    );
    expect(report.summary).toMatchObject({ replayed: 4, same: 4, differ: 0, needsModel: 0 });
    expect(report.ok).toBe(true);
    // Past the gate: the refund, then the mail, each taken from the recording.
    const approved = byRun(report)[runs.approved.id].replayed.map((a) => [
      a.tool ?? a.decision,
      a.gate,
      a.review,
      a.outcome,
    ]);
    expect(approved).toEqual([
      ["orders.get", false, null, "succeeded"],
      ["orders.history", false, null, "succeeded"],
      ["record", false, null, null],
      ["payments.refund", true, "approve", "succeeded"],
      ["mail.send", false, null, "succeeded"],
      ["record", false, null, null],
      ["complete", false, null, null],
    ]);
    expect(byRun(report)[runs.edited.id].replayed.map((a) => a.review)).toContain("redirect");
  });

  it("a changed threshold is caught at the first step that differs, with both sides", async () => {
    const report = await replay(
      withThreshold(50_000),
      Object.values(runs).map((r) => r.id),
    );
    const result = byRun(report);
    expect(result[runs.small.id].verdict).toBe("same"); // $40 never asked anyone
    for (const run of [runs.approved, runs.rejected, runs.edited]) {
      const d = result[run.id].difference!;
      expect(result[run.id].verdict).toBe("differs");
      expect(d.recorded).toMatchObject({
        decision: "call",
        tool: "payments.refund",
        permission: "require_approval",
        gate: true,
      });
      expect(d.replayed).toMatchObject({ decision: "call", tool: "payments.refund", permission: "allow", gate: false });
      expect(d.fields).toEqual(expect.arrayContaining(["permission", "gate"]));
      expect(d.step).toBe(3); // read order, read history, decide, then the refund
    }
    expect(report.summary).toMatchObject({ replayed: 4, same: 1, differ: 3 });
    expect(report.ok).toBe(false);
    // The change was meant to alter these runs: allowed, the replay passes.
    const allowed = await replay(
      withThreshold(50_000),
      Object.values(runs).map((r) => r.id),
      { allow: [runs.approved.id, runs.rejected.id, runs.edited.id] },
    );
    expect(allowed.ok).toBe(true);
    expect(allowed.summary.allowed).toBe(3);
  });

  it("a changed argument is named by its path, recorded and replayed", async () => {
    const capped: DefinedAgent = {
      ...agent,
      definition: {
        ...agent.definition,
        policy: {
          async decide(input) {
            const out = await agent.definition.policy.decide(input);
            const d = out.decision;
            return d.kind === "call" && d.tool === "payments.refund"
              ? { ...out, decision: { ...d, args: { ...(d.args as object), amountCents: 2_000 } } }
              : out;
          },
        },
      },
    };
    const report = await replay(capped, [runs.small.id]);
    const d = report.runs[0].difference!;
    expect(report.runs[0].verdict).toBe("differs");
    expect(d.fields).toContain("args");
    expect(d.argsDiff).toEqual([{ path: "amountCents", recorded: 4_000, replayed: 2_000 }]);
  });

  it("on the console: a version's recent finished runs, counted, each differing run told by its first difference", async () => {
    const version = agent.definition.version;
    // Cancelled by a person: it did not end by what it did, so it is not replayed.
    const { run: cancelled } = await t.runtime.startRun({
      agent: slug,
      input: { orderId: "ord_never", reason: "Changed my mind." },
      startedBy: "support@test",
    });
    await t.runtime.cancelRun({ runId: cancelled.id, by: "support@test" });
    const current = { agent: withThreshold(50_000), tools, withModel: false };

    const summary = await replaySummary({ source: t.store, slug, version, current });
    expect(summary).toMatchObject({
      agent: slug,
      version,
      replayed: 4,
      same: 1,
      differ: 3,
      needsModel: 0,
      line: "replayed 4 runs: 1 same, 3 differ",
    });
    expect(summary.differing.map((d) => d.runId).sort()).toEqual(
      [runs.approved.id, runs.rejected.id, runs.edited.id].sort(),
    );
    for (const d of summary.differing) {
      expect(d).toMatchObject({ verdict: "differs", step: 3, recordedStatus: "COMPLETED" });
      expect(d.fields).toEqual(expect.arrayContaining(["permission", "gate"]));
      expect(d.recorded).toMatch(/^call payments\.refund · permission: require_approval · gate: yes → \w+/);
      expect(d.replayed).toMatch(/^call payments\.refund · permission: allow · gate: no/);
    }

    // The newest first, at most the limit; another version's runs are not this version's.
    const newest = await replaySummary({ source: t.store, slug, version, current, limit: 2 });
    expect(newest.differing.map((d) => d.runId).sort()).toEqual([runs.rejected.id, runs.edited.id].sort());
    expect((await replaySummary({ source: t.store, slug, version: "0000000000ff", current })).line).toBe(
      "replayed 0 runs: 0 same, 0 differ",
    );
    // The unchanged agent: every run the same.
    expect(
      (await replaySummary({ source: t.store, slug, version, current: { agent, tools, withModel: false } })).line,
    ).toBe("replayed 4 runs: 4 same, 0 differ");
    await expectError(replaySummary({ source: t.store, slug: uid("not-deployed"), version, current }), "NOT_FOUND");
  });

  it("replays from an exported backup file as from the store", async () => {
    const file = path.join(tmpdir(), `${uid("replay")}.jsonl`);
    let text = "";
    for await (const line of exportBackup(t.db, { runIds: [runs.small.id, runs.approved.id] })) text += line;
    writeFileSync(file, text);
    const dataset = await openBackupSource(file);
    try {
      expect(dataset.runs).toBe(2);
      const same = await replay(agent, [runs.small.id, runs.approved.id], { source: dataset.store });
      expect(same.runs.map((r) => r.verdict)).toEqual(["same", "same"]);
      const changed = await replay(withThreshold(50_000), [runs.approved.id], { source: dataset.store });
      expect(changed.runs[0]).toMatchObject({ verdict: "differs", difference: { step: 3 } });
    } finally {
      await dataset.close();
    }
    // The command line, with the agent as this code registers it: the file's runs renamed to its slug.
    const named = path.join(tmpdir(), `${uid("replay-cli")}.jsonl`);
    writeFileSync(named, text.replaceAll(slug, "refund-agent"));
    const out: string[] = [];
    expect(
      await replayCommand(
        { agent: "refund-agent", dataset: named, runs: `${runs.small.id},${runs.approved.id}` },
        (line) => out.push(line),
      ),
    ).toBe(0);
    expect(out.join("\n")).toContain("replayed 2 runs: 2 same, 0 differ");
    expect(await replayCommand({ agent: "no-such-agent", dataset: named }, (line) => out.push(line))).toBe(2);
  });

  describe("a run a model decided", () => {
    // A stand-in for a model: the refund agent's decisions, reported with token usage as a model's are.
    // No model is reachable offline; what is tested is the recording's use, not a model's answers.
    const modelSlug = uid("model-refund");
    const asModel = (decide: DefinedAgent["definition"]["policy"]["decide"]): DefinedAgent["definition"]["policy"] => ({
      async decide(input) {
        return { ...(await decide(input)), usage: { inputTokens: 100, outputTokens: 20 } };
      },
    });
    const modelAgent: DefinedAgent = {
      ...agent,
      definition: {
        ...agent.definition,
        slug: modelSlug,
        policy: asModel((input) => agent.definition.policy.decide(input)),
      },
      defaultPermissions: agent.defaultPermissions.map((rule) => ({ ...rule, agent: modelSlug })),
    };
    /** The same agent whose model may not be asked: every decision must come from the recording. */
    const unreachable: DefinedAgent = {
      ...modelAgent,
      definition: {
        ...modelAgent.definition,
        policy: { decide: () => Promise.reject(new Error("the model was asked")) },
      },
    };
    let recorded: RunRecord;

    beforeAll(async () => {
      const world = createBuiltInTools({ sandboxUrl: () => sandbox2.url, timeoutMs: SANDBOX_CALL_MS });
      const m = createTestRuntime(url, { agents: [modelAgent.definition], tools: world });
      const sandbox2 = await startSandboxServer(m.db);
      try {
        for (const rule of modelAgent.defaultPermissions) await m.runtime.permissions.put(rule, { by: "admin@test" });
        const order = await createSandboxOrder(m.db, { amountCents: 24_000 });
        const { run } = await m.runtime.startRun({
          agent: modelSlug,
          input: { orderId: order.id },
          startedBy: "support@test",
        });
        await m.runtime.createWorker().drain();
        const [packet] = await m.store.findPackets({ runId: run.id, status: ["PENDING"] });
        await m.runtime.decidePacket({
          packetId: packet.id,
          reviewer: "reviewer@test",
          input: { decision: "approve" },
        });
        await m.runtime.createWorker().drain();
        recorded = await m.runtime.getRun(run.id);
      } finally {
        await sandbox2.close();
        await m.close();
      }
    }, 60_000);

    it("replays the model's recorded decisions while what it was shown is the same: no model is asked", async () => {
      expect(recorded.status).toBe("COMPLETED");
      const report = await replayAgentRuns({
        source: t.store,
        agent: unreachable,
        tools,
        selection: { runIds: [recorded.id] },
      });
      expect(report.runs[0]).toMatchObject({ verdict: "same", replayedStatus: "COMPLETED" });
      expect(report.runs[0].replayed.find((a) => a.tool === "payments.refund")).toMatchObject({
        gate: true,
        review: "approve",
        outcome: "succeeded",
      });
    });

    it("changed instructions: the recorded decisions stop matching at once, and without a model the run is flagged", async () => {
      const reworded = {
        ...unreachable,
        definition: {
          ...unreachable.definition,
          instructions: `${unreachable.definition.instructions}\nAlways be brief.`,
        },
      };
      const report = await replayAgentRuns({
        source: t.store,
        agent: reworded,
        tools,
        selection: { runIds: [recorded.id] },
      });
      expect(report.runs[0]).toMatchObject({
        verdict: "needs_model",
        stopped: "needs a model",
        difference: { step: 0 },
      });
      expect(report.summary.needsModel).toBe(1);
      expect(report.ok).toBe(false);
      // With a model configured, the agent's policy decides from there (here the stand-in, which acts alike).
      const decided = await replayAgentRuns({
        source: t.store,
        agent: {
          ...modelAgent,
          definition: { ...modelAgent.definition, instructions: reworded.definition.instructions },
        },
        tools,
        selection: { runIds: [recorded.id] },
        withModel: true,
      });
      expect(decided.runs[0].verdict).toBe("same");
    });
  });
});
