import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition, Decision, RunState, RuntimeStore, StepCommit, ToolDefinition } from "../lib/runtime";
import { seededRandom } from "../lib/sandbox/context";
import { joinState, readEntries } from "../lib/store/state-entries";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { until } from "./support/until";

// A run's state is stored as a head plus entries (lib/store/state-entries.ts). Property: for random
// runs, the state at every checkpoint, rebuilt from its head and entries, is byte for byte the JSON of
// the whole state the engine committed there (what the store wrote before entries existed) — across
// parks and re-claims, a retry, a fork, and a run whose older states hold their facts inside.

/** A seeded generator, so a failure names the seed that reproduces it. */
function random(seed: number) {
  const next = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const text = () => ["", "ü€𝄞", 'a"b\\c', "line\nbreak", "x".repeat(int(300))][int(5)] + int(1000);
  const value = (depth = 0): unknown => {
    switch (depth > 2 ? int(4) : int(7)) {
      case 0:
        return int(1e6) - 5e5;
      case 1:
        return text();
      case 2:
        return null;
      case 3:
        return int(2) === 1;
      case 4:
        return Array.from({ length: int(4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: int(4) }, (_, i) => [`${text()}${i}`, value(depth + 1)]));
    }
  };
  return { int, value, text };
}

const READ: ToolDefinition<{ n: number }> = {
  name: "test.entries.read",
  description: "reads something",
  capability: "read",
  semantics: "pure-read",
  input: z.object({ n: z.number() }),
  impact: () => "reads",
  run: async ({ n }) => ({ n, payload: random(n).value() }),
};

/** A policy that does random things, decided by (seed, step) so that a replayed step decides the same. */
function randomAgent(slug: string, seed: number, steps: number): AgentDefinition {
  return {
    slug,
    version: "1",
    name: slug,
    description: "random steps",
    instructions: "Do random things.",
    input: z.unknown(),
    tools: [READ.name],
    policy: {
      async decide(input) {
        const { state } = input;
        const r = random(seed * 1000 + state.step);
        // Journal entries: clock readings and random ids, a few a step.
        for (let i = r.int(3); i > 0; i--) void (r.int(2) ? input.now() : input.randomId());
        if (state.step >= steps) return { decision: { kind: "complete", output: r.value() } };
        const choice = r.int(10);
        let decision: Decision;
        if (choice < 4)
          decision = {
            kind: "record",
            facts: Array.from({ length: 1 + r.int(3) }, () => ({ key: r.text(), value: r.value() })),
          };
        else if (choice < 7)
          decision = { kind: "call", tool: READ.name, args: { n: r.int(1e6) }, resultKey: r.text(), evidence: [] };
        else if (choice < 9)
          decision = { kind: "sleep", durationMs: 1 }; // parks: the next step is a fresh claim
        else decision = { kind: "record", facts: [] };
        return { decision };
      },
    },
  };
}

/** The store, recording the JSON of every whole state it is asked to write, by run and stateSeq. */
function recording(store: RuntimeStore) {
  const written = new Map<string, string>();
  const key = (runId: string, seq: number) => `${runId}#${seq}`;
  const wrapped: RuntimeStore = {
    ...store,
    async commitStep(commit: StepCommit) {
      const text = JSON.stringify(commit.state);
      // A carried step's whole state: its head, with the facts and journal entries it had then (both only
      // grow, so they are the first ones of the state committed now).
      const journal = Object.entries(commit.state.journal);
      const carried = (commit.carried ?? []).map((c) =>
        JSON.stringify({
          ...JSON.parse(c.head),
          facts: commit.state.facts.slice(0, c.entries.facts),
          journal: Object.fromEntries(journal.slice(0, c.entries.journal)),
        }),
      );
      const result = await store.commitStep(commit);
      carried.forEach((whole, i) => written.set(key(commit.lease.runId, result.stateSeq - carried.length + i), whole));
      written.set(key(commit.lease.runId, result.stateSeq), text);
      return result;
    },
    async createRun(run) {
      const created = await store.createRun(run);
      if (created.created) written.set(key(run.id, 1), JSON.stringify(run.state));
      return created;
    },
    async transitionRun(opts) {
      const record = await store.transitionRun(opts);
      if (opts.state) written.set(key(opts.runId, record.stateSeq), JSON.stringify(opts.state.state));
      return record;
    },
  };
  return { store: wrapped, written, key };
}

describe.each(providers())("state stored as a head and entries [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  let rec: ReturnType<typeof recording>;
  let runtime: ReturnType<typeof createTestRuntime>["runtime"];
  beforeAll(async () => {
    t = createTestRuntime(url, { tools: [READ] });
    rec = recording(t.store);
    const { createRuntime } = await import("../lib/runtime");
    // Reads carried (cursor.ts commitRead) whatever the machine's speed, at most 3 in a commit: their checkpoints too.
    runtime = createRuntime({
      store: rec.store,
      agents: [],
      tools: [READ],
      retryBaseDelayMs: 5,
      carryReads: { maxSteps: 4, maxMs: 60_000 },
    });
  });
  afterAll(() => t.close());

  /** Every stored checkpoint of the run, rebuilt from head + entries, against the whole state written there. */
  async function expectCheckpointsWhole(runId: string) {
    const rows = await t.db.checkpoint.findMany({ where: { runId }, orderBy: { seq: "asc" } });
    const entries = (await readEntries(t.db, [{ runId, entrySeq: Math.max(...rows.map((r) => r.entrySeq)) }])).get(
      runId,
    )!;
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      const whole = rec.written.get(rec.key(runId, row.seq));
      expect(whole, `checkpoint ${row.seq} was written through the store`).toBeDefined();
      const rebuilt = joinState(
        row.state,
        entries.filter((e) => e.seq <= row.entrySeq),
      ).raw;
      expect(
        typeof rebuilt === "string" ? rebuilt : JSON.stringify(rebuilt),
        `run ${runId} checkpoint ${row.seq}`,
      ).toBe(whole);
    }
    // And what the store reads back, the same state as the last one written.
    const run = await t.store.getRun(runId);
    const last = rows.at(-1)!;
    expect(JSON.stringify(run!.state)).toBe(JSON.stringify((await t.store.getCheckpoint(runId, last.seq))!.state));
    return { rows, entries };
  }

  const drain = () => runtime.createWorker({ concurrency: 8 }).drain();
  /** Drains until every run has `status`: a sleeping run comes due only later, so drain again until then. */
  const drainUntil = (ids: string[], status: string) =>
    until(
      async () => {
        await drain();
        return Promise.all(ids.map(async (id) => (await t.store.getRun(id))!.status));
      },
      { what: `every run is ${status}`, holds: (seen) => seen.every((s) => s === status) },
    );

  it("random runs: every checkpoint rebuilds to the whole state, byte for byte, and a step writes only what it added", async () => {
    const seeds = Array.from({ length: 12 }, (_, i) => 7919 * (i + 1));
    const runs: string[] = [];
    for (const seed of seeds) {
      const agent = randomAgent(uid(`random-${seed}`), seed, 12 + (seed % 17));
      runtime.context.agents.set(agent.slug, agent);
      await grant(t.runtime, agent);
      runs.push((await runtime.startRun({ agent: agent.slug, input: random(seed).value() })).run.id);
    }
    await drainUntil(runs, "COMPLETED"); // the sleepers' timers come due between drains
    for (const id of runs) {
      expect((await t.store.getRun(id))!.status).toBe("COMPLETED");
      const { rows, entries } = await expectCheckpointsWhole(id);
      // Each fact and each journal entry is stored once, in one row: the entries are exactly the final state's.
      const final = (await t.store.getRun(id))!.state;
      expect(entries.filter((e) => e.kind === "fact")).toHaveLength(final.facts.length);
      expect(entries.filter((e) => e.kind === "journal")).toHaveLength(Object.keys(final.journal).length);
      // The heads hold no facts and no journal: what a step writes does not grow with the run.
      for (const row of rows) expect(JSON.parse(row.state)).toMatchObject({ facts: [], journal: {} });
    }
  });

  it("a retried run and a fork from a middle checkpoint keep the states whole", async () => {
    let failOnce = true;
    const base = randomAgent(uid("retry"), 31337, 10);
    const agent: AgentDefinition = {
      ...base,
      policy: {
        async decide(input) {
          if (input.state.step === 6 && failOnce) {
            failOnce = false;
            return { decision: { kind: "fail", reason: "a transient failure" } };
          }
          return base.policy.decide(input);
        },
      },
    };
    runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent);
    const { run } = await runtime.startRun({ agent: agent.slug, input: null });
    await drainUntil([run.id], "FAILED");
    expect((await t.store.getRun(run.id))!.status).toBe("FAILED");
    await runtime.retryRun({ runId: run.id, by: "ops@example.com" });
    await drainUntil([run.id], "COMPLETED");
    expect((await t.store.getRun(run.id))!.status).toBe("COMPLETED");
    const { rows } = await expectCheckpointsWhole(run.id);

    const middle = rows[Math.floor(rows.length / 2)];
    const fork = await runtime.forkRun({ runId: run.id, checkpointSeq: middle.seq, startedBy: "ops@example.com" });
    const atMiddle = { ...(await t.store.getCheckpoint(run.id, middle.seq))!.state, pending: null };
    // The fork's state is the checkpoint's, plus the source's recorded decisions it replays from there (replay.ts).
    expect(fork.state.replay?.from).toBe(run.id);
    expect(JSON.stringify({ ...fork.state, replay: null })).toBe(JSON.stringify(atMiddle));
    expect(JSON.stringify((await t.store.getRun(fork.id))!.state)).toBe(JSON.stringify(fork.state));
  });

  it("a run whose state was stored whole (before entries) goes on: older checkpoints read as they were, newer ones as head + entries", async () => {
    const agent = randomAgent(uid("legacy"), 4242, 14);
    runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent);
    const { run } = await runtime.startRun({ agent: agent.slug, input: null });
    // Take a few steps, then make its stored state whole again, as the store wrote it before entries.
    const worker = runtime.createWorker();
    for (let i = 0; i < 4; i++) await worker.runOnce({ runId: run.id }).catch(() => false);
    const current = (await t.store.getRun(run.id))!;
    const whole = JSON.stringify(current.state);
    await t.db.$transaction([
      t.db.stateEntry.deleteMany({ where: { runId: run.id } }),
      t.db.checkpoint.deleteMany({ where: { runId: run.id } }),
      t.db.checkpoint.create({
        data: { runId: run.id, seq: current.stateSeq, step: current.state.step, state: whole, entrySeq: 0 },
      }),
      t.db.run.update({ where: { id: run.id }, data: { state: whole, entrySeq: 0 } }),
    ]);
    rec.written.set(rec.key(run.id, current.stateSeq), whole);
    expect(JSON.stringify((await t.store.getRun(run.id))!.state)).toBe(JSON.stringify(current.state as RunState));

    await drainUntil([run.id], "COMPLETED");
    expect((await t.store.getRun(run.id))!.status).toBe("COMPLETED");
    await expectCheckpointsWhole(run.id);
  });
});

describe("joinState", () => {
  it("passes a head whose parts are broken on as it is, for the schema to report: never repaired", () => {
    const entries = [{ seq: 1, kind: "fact", key: null, value: JSON.stringify({ id: "f1" }) }];
    expect(joinState(JSON.stringify({ facts: "broken by hand", journal: {} }), entries).raw).toEqual({
      facts: "broken by hand",
      journal: {},
    });
    expect(joinState(JSON.stringify({ facts: [], journal: [] }), entries).raw).toEqual({ facts: [], journal: [] });
    expect(joinState("{not json", entries).raw).toBe("{not json");
    expect(joinState(JSON.stringify({ facts: [], journal: {} }), entries).raw).toEqual({
      facts: [{ id: "f1" }],
      journal: {},
    });
  });
});
