// A worker process for journey evals (spawned by worker-pool.ts). It loads the engine once, then
// drives any number of trials at once, each on its own database, by commands on stdin (one JSON a line):
//   {"cmd":"start", trial, dbUrl, sandboxUrl, policy, subject?, breakIdempotency?, faultAt?, faultTool?, leaseMs}
//     → a worker for that trial's database; at the named fault point (first call of faultTool) it prints
//       "FAULT <trial> <point> <tool> <runId>" and holds that run there until the harness kills the
//       process (SIGKILL) — the process's other trials keep running until then;
//   {"cmd":"stop", trial} → stops that trial's worker, closes its database, prints "STOPPED <trial>".
// It prints "READY" once loaded, "STARTED <trial>" once a trial's worker runs.
import { createInterface } from "node:readline";
import { createEvalEngine, type EvalEngine, type PolicyKind } from "./eval-runtime";

type StartCommand = {
  cmd: "start";
  trial: string;
  dbUrl: string;
  sandboxUrl: string;
  policy: PolicyKind;
  subject?: string | null;
  breakIdempotency?: boolean;
  faultAt?: string;
  faultTool?: string;
  leaseMs: number;
};
type StopCommand = { cmd: "stop"; trial: string };

const trials = new Map<string, { engine: EvalEngine; worker: ReturnType<EvalEngine["runtime"]["createWorker"]> }>();
const say = (line: string) => process.stdout.write(`${line}\n`);

async function start(command: StartCommand) {
  let faulted = false;
  const engine = await createEvalEngine({
    dbUrl: command.dbUrl,
    sandboxUrl: command.sandboxUrl,
    policy: command.policy,
    subject: command.subject,
    breakIdempotency: command.breakIdempotency,
    onFaultPoint: async (point, info) => {
      if (!faulted && point === command.faultAt && info.tool === command.faultTool) {
        faulted = true;
        say(`FAULT ${command.trial} ${point} ${info.tool} ${info.runId}`);
        await new Promise(() => {}); // hold here until killed
      }
    },
  });
  const worker = engine.runtime.createWorker({
    leaseMs: command.leaseMs,
    pollMs: 30,
    owner: `eval-worker-${process.pid}-${command.trial}`,
  });
  worker.start();
  trials.set(command.trial, { engine, worker });
  say(`STARTED ${command.trial}`);
}

async function stop(command: StopCommand) {
  const current = trials.get(command.trial);
  trials.delete(command.trial);
  if (current) {
    await current.worker.stop();
    await current.engine.close();
  }
  say(`STOPPED ${command.trial}`);
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  // Commands of different trials run concurrently; a held trial never blocks another.
  const command = JSON.parse(line) as StartCommand | StopCommand;
  (command.cmd === "start" ? start(command) : stop(command)).catch((error) => {
    say(`ERROR ${command.trial} ${error instanceof Error ? error.message : String(error)}`);
  });
});
lines.on("close", () => process.exit(0));
say("READY");
