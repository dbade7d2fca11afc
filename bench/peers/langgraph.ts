import { Annotation, Command, END, interrupt, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { payload, sequentialAndConcurrent, STEPS, type PeerFigures, type Plan } from "./workload";

// LangGraph.js 1.7: a StateGraph of STEPS nodes in a line, checkpointed by PostgresSaver, one thread
// per run. durability "sync" writes each step's checkpoint before the next step starts, which is what
// Tether and DBOS promise; the default, "async", writes it while the next step runs (measured too,
// for information). Pool: PostgresSaver.fromConnString's pg.Pool default (10 connections).

const State = Annotation.Root({
  i: Annotation<number>(),
  order: Annotation<Record<string, unknown> | null>(),
  done: Annotation<number>(),
  decision: Annotation<string | null>(),
});
type S = typeof State.State;
export type Durability = "sync" | "async";
type Config = { configurable: { thread_id: string }; durability: Durability };
type Graph = { invoke(input: Partial<S> | Command, config: Config): Promise<S & { __interrupt__?: unknown[] }> };
// StateGraph tracks node names in its type, which a loop of addNode cannot express: build through a
// structural view of the same builder.
type Builder = {
  addNode(name: string, node: (s: S) => Partial<S>): Builder;
  addEdge(from: string, to: string): Builder;
  compile(opts: { checkpointer: PostgresSaver }): Graph;
};
const builder = () => new StateGraph(State) as unknown as Builder;

function lineGraph(checkpointer: PostgresSaver): Graph {
  const g = builder();
  for (let k = 0; k < STEPS; k++) g.addNode(`step${k}`, (s) => ({ order: payload(s.i * STEPS + k), done: k + 1 }));
  g.addEdge(START, "step0");
  for (let k = 1; k < STEPS; k++) g.addEdge(`step${k - 1}`, `step${k}`);
  g.addEdge(`step${STEPS - 1}`, END);
  return g.compile({ checkpointer });
}

/** gate (interrupt: a person decides) → one step → end. */
function gateGraph(checkpointer: PostgresSaver): Graph {
  return builder()
    .addNode("gate", () => ({ decision: interrupt<{ ask: string }, string>({ ask: "approve?" }) }))
    .addNode("after", (s) => ({ order: payload(s.i), done: 1 }))
    .addEdge(START, "gate")
    .addEdge("gate", "after")
    .addEdge("after", END)
    .compile({ checkpointer });
}

export async function benchLangGraph(
  url: string,
  plan: Plan,
  durability: Durability,
  withGate: boolean,
): Promise<PeerFigures> {
  const checkpointer = PostgresSaver.fromConnString(url);
  await checkpointer.setup();
  try {
    const graph = lineGraph(checkpointer);
    let seq = 0;
    const one = async () => {
      const i = seq++;
      const out = await graph.invoke(
        { i, order: null, done: 0, decision: null },
        { configurable: { thread_id: `${durability}-${i}` }, durability },
      );
      if (out.done !== STEPS) throw new Error(`LangGraph thread ${i} ended after ${out.done} steps`);
    };
    const { sequential, concurrent } = await sequentialAndConcurrent(plan, one);

    const gateMs: number[] = [];
    if (withGate) {
      const gated = gateGraph(checkpointer);
      for (let r = -3; r < plan.gateRounds; r++) {
        // 3 warm-up rounds
        const config: Config = { configurable: { thread_id: `gate-${durability}-${r}` }, durability };
        const paused = await gated.invoke({ i: r, order: null, done: 0, decision: null }, config);
        if (!paused.__interrupt__?.length) throw new Error("LangGraph gate graph did not interrupt");
        const t0 = performance.now();
        const resumed = await gated.invoke(new Command({ resume: "approve" }), config);
        const ms = performance.now() - t0;
        if (resumed.decision !== "approve" || resumed.done !== 1)
          throw new Error(
            `LangGraph resume ended with ${JSON.stringify({ decision: resumed.decision, done: resumed.done })}`,
          );
        if (r >= 0) gateMs.push(ms);
      }
    }
    return { sequential, concurrent, gateMs: withGate ? gateMs : undefined, notes: [] };
  } finally {
    await checkpointer.end();
  }
}
