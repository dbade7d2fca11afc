import { z } from "zod";
import { createDb, type Db } from "../../lib/db";
import type { AgentDefinition, CarryReads, Logger, RuntimeStore, StepCommit, ToolDefinition } from "../../lib/runtime";
import { createTether } from "../../lib/tether";
import { diff, snapshot, type Counts } from "./counters";
import { orderPayload } from "./payload";

// The workload: in-process tools (no network: we measure the engine's durability cost) that return
// a ~1 KB object, and a scripted agent that calls one of them `steps` times, then completes.

/** A tool's result: ~1 KB (JSON.stringify(payload(i)).length ≈ 1024), or BENCH_PAYLOAD_BYTES (diagnostics: how much do bytes cost?). */
export const payload = (i: number) => orderPayload(i, Number(process.env.BENCH_PAYLOAD_BYTES ?? 1024));

const common = { input: z.object({ i: z.number().int() }), impact: ({ i }: { i: number }) => `bench call ${i}` };
export const readTool: ToolDefinition<{ i: number }> = {
  ...common,
  name: "bench.read",
  description: "returns a ~1 KB order",
  capability: "read",
  semantics: "pure-read",
  run: async ({ i }) => payload(i),
};
export const writeTool: ToolDefinition<{ i: number }> = {
  ...common,
  name: "bench.write",
  description: "an idempotent write returning a ~1 KB receipt",
  capability: "execute",
  semantics: "idempotent",
  run: async ({ i }, ctx) => ({ ...payload(i), idempotencyKey: ctx.idempotencyKey }),
};

/** One step window: from the policy's decision of step k to its decision of step k+1 (same run). */
export type StepSample = { ms: number; counts: Counts; provider: "sqlite" | "postgres" };

export class StepRecorder {
  samples: StepSample[] = [];
  private open = new Map<string, { step: number; t: number; counts: Counts }>();
  constructor(readonly provider: "sqlite" | "postgres") {}

  mark(tag: string, step: number, isToolStep: boolean) {
    const t = performance.now();
    const counts = snapshot(this.provider);
    const prev = this.open.get(tag);
    if (prev && prev.step === step - 1)
      this.samples.push({ ms: t - prev.t, counts: diff(prev.counts, counts), provider: this.provider });
    if (isToolStep) this.open.set(tag, { step, t, counts });
    else this.open.delete(tag);
  }
  reset() {
    this.samples = [];
    this.open.clear();
  }
}

function benchAgent(
  slug: string,
  tool: string,
  recorder: StepRecorder,
): AgentDefinition<{ tag: string; steps: number }> {
  return {
    slug,
    version: "1",
    name: slug,
    description: "benchmark agent",
    instructions: "Call the tool `steps` times, then complete.",
    input: z.object({ tag: z.string(), steps: z.number().int().positive() }),
    tools: [tool],
    maxSteps: 100_000,
    policy: {
      async decide({ state }) {
        const { tag, steps } = state.input as { tag: string; steps: number };
        const call = state.step < steps;
        recorder.mark(tag, state.step, call);
        return call
          ? { decision: { kind: "call", tool, args: { i: state.step }, resultKey: "order", evidence: [] } }
          : { decision: { kind: "complete", output: { steps: state.step } } };
      },
    },
  };
}

/** Told when a step's commit has committed (the store's promise resolved), with performance.now(). */
export type CommitListener = (commit: StepCommit, at: number) => void;
/** Told of every store call that resolved: its name, arguments, and performance.now() at call and at resolution. */
export type StoreCallListener = (name: string, args: unknown[], startedAt: number, endedAt: number) => void;
type Listeners = { commits: Set<CommitListener>; calls: Set<StoreCallListener> };

/** Counts calls of each RuntimeStore method (which store operations a step performs), and tells
 *  listeners (latency scenarios) when a call, a commitStep in particular, has resolved. */
function countingStore(store: RuntimeStore, calls: Record<string, number>, listeners: Listeners): RuntimeStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls[String(key)] = (calls[String(key)] ?? 0) + 1;
        if (listeners.commits.size === 0 && listeners.calls.size === 0) return value.apply(target, args);
        const startedAt = performance.now();
        const out = value.apply(target, args);
        if (!(out instanceof Promise)) return out;
        return out.then((result) => {
          const at = performance.now();
          for (const listener of listeners.calls) listener(String(key), args, startedAt, at);
          if (key === "commitStep") for (const listener of listeners.commits) listener(args[0] as StepCommit, at);
          return result;
        });
      };
    },
  });
}

/** Optional extras (all additive: without them buildBench behaves as it always did). */
export type BenchOptions = {
  /** More agents and tools next to bench-pure / bench-effect (bench/support/scenario-agents.ts). */
  agents?: AgentDefinition[];
  tools?: ToolDefinition[];
  /** Grant bench-pure / bench-effect their tool (default true). Worker processes reuse the grants
   *  their parent wrote instead of racing to write them again. */
  grant?: boolean;
  logger?: Logger;
  /** The engine's carrying of free pure reads (lib/runtime/context.ts); false: a commit every step. */
  carryReads?: CarryReads | false;
};

export async function buildBench(
  url: string,
  provider: "sqlite" | "postgres",
  setup?: (db: Db) => Promise<void>,
  options: BenchOptions = {},
) {
  const db = createDb(url);
  await setup?.(db);
  const recorder = new StepRecorder(provider);
  const storeCalls: Record<string, number> = {};
  const listeners: Listeners = { commits: new Set(), calls: new Set() };
  const agents = {
    pure: benchAgent("bench-pure", readTool.name, recorder),
    effectful: benchAgent("bench-effect", writeTool.name, recorder),
  };
  const { runtime } = createTether({
    db,
    agents: [...Object.values(agents), ...(options.agents ?? [])],
    tools: [readTool, writeTool, ...(options.tools ?? [])],
    registeredTools: false,
    wrapStore: (store) => countingStore(store, storeCalls, listeners),
    logger: options.logger,
    ...(options.carryReads !== undefined ? { carryReads: options.carryReads } : {}),
  });
  if (options.grant !== false) {
    for (const agent of Object.values(agents)) {
      await runtime.permissions.put({ agent: agent.slug, tool: agent.tools[0], effect: "allow" }, { by: "bench" });
    }
  }
  /** Listen to step commits / to every store call (each returns unsubscribe). */
  const onCommit = (listener: CommitListener) => {
    listeners.commits.add(listener);
    return () => void listeners.commits.delete(listener);
  };
  const onStoreCall = (listener: StoreCallListener) => {
    listeners.calls.add(listener);
    return () => void listeners.calls.delete(listener);
  };
  return { db, runtime, recorder, storeCalls, agents, onCommit, onStoreCall };
}
export type Bench = Awaited<ReturnType<typeof buildBench>>;
