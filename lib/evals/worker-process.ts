// A worker process for journey evals (spawned by worker-pool.ts). It loads the engine once, then
// serves trials one after another, each on its own database, by commands on stdin (one JSON a line):
//   {"cmd":"start", dbUrl, sandboxUrl, policy, breakIdempotency?, faultAt?, faultTool?, leaseMs}
//     → drives every runnable run of that database; at the named fault point (first call of faultTool)
//       it prints "FAULT <point> <tool> <runId>" and holds there until the harness kills it (SIGKILL);
//   {"cmd":"stop"} → stops the worker, closes the database, prints "STOPPED".
// It prints "READY" once loaded.
import { createInterface } from "node:readline";
import { createEvalEngine, type EvalEngine, type PolicyKind } from "./eval-runtime";

type StartCommand = { cmd: "start"; dbUrl: string; worldDbUrl?: string; sandboxUrl: string; policy: PolicyKind; breakIdempotency?: boolean; faultAt?: string; faultTool?: string; leaseMs: number };

let current: { engine: EvalEngine; worker: ReturnType<EvalEngine["runtime"]["createWorker"]> } | null = null;
const say = (line: string) => process.stdout.write(`${line}\n`);

async function start(command: StartCommand) {
  const engine = await createEvalEngine({
    dbUrl: command.dbUrl,
    sandboxUrl: command.sandboxUrl,
    policy: command.policy,
    breakIdempotency: command.breakIdempotency,
    onFaultPoint: async (point, info) => {
      if (point === command.faultAt && info.tool === command.faultTool) {
        say(`FAULT ${point} ${info.tool} ${info.runId}`);
        await new Promise(() => {}); // hold here until killed
      }
    },
  });
  const worker = engine.runtime.createWorker({ leaseMs: command.leaseMs, pollMs: 20, owner: `eval-worker-${process.pid}-${Date.now().toString(36)}` });
  worker.start();
  current = { engine, worker };
  say("STARTED");
}

async function stop() {
  if (current) {
    await current.worker.stop();
    await current.engine.close();
    current = null;
  }
  say("STOPPED");
}

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on("line", (line) => {
  queue = queue.then(async () => {
    const command = JSON.parse(line) as StartCommand | { cmd: "stop" };
    if (command.cmd === "start") await start(command);
    else await stop();
  }).catch((error) => {
    say(`ERROR ${error instanceof Error ? error.message : String(error)}`);
  });
});
lines.on("close", () => process.exit(0));
say("READY");
