import { DBOS } from "@dbos-inc/dbos-sdk";
import { payload, sequentialAndConcurrent, STEPS, type PeerFigures, type Plan } from "./workload";

// DBOS Transact 5.3: a workflow of STEPS `DBOS.runStep`s. registerWorkflow is the decorator-free form
// of `@DBOS.workflow()` (both wrap the function with the same invoker, dist/src/dbos.js); it spares the
// root tsconfig `experimentalDecorators`, which the app does not use. Pool: DBOS's default (10
// connections), like Tether's and LangGraph's pg pools.

async function tenSteps(i: number): Promise<number> {
  let bytes = 0;
  for (let k = 0; k < STEPS; k++) {
    const out = await DBOS.runStep(async () => payload(i * STEPS + k), { name: `step${k}` });
    bytes += JSON.stringify(out).length;
  }
  return bytes;
}

export async function benchDbos(url: string, plan: Plan): Promise<PeerFigures> {
  const workflow = DBOS.registerWorkflow(tenSteps, { name: "tenSteps" });
  DBOS.setConfig({ name: "tether-bench-peers", systemDatabaseUrl: url, logLevel: "error" });
  await DBOS.launch();
  try {
    let seq = 0;
    // Called directly, a workflow runs here and its promise is its result: durable all the same
    // (status row, one checkpoint per step, then the result).
    return { ...(await sequentialAndConcurrent(plan, () => workflow(seq++))), notes: [] };
  } finally {
    await DBOS.shutdown();
  }
}
