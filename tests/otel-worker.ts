// A real worker process for tests/otel.int.test.ts: the built-in agents and tools (reaching the
// sandbox at TETHER_SANDBOX_URL), the store wrapped as the composition root wraps it when
// OTEL_EXPORTER_OTLP_ENDPOINT is set, and the crash workers' fault point: at TETHER_FAULT_AT for
// TETHER_FAULT_TOOL it says so on stdout and waits to be killed. SIGTERM: stop, send the last spans, exit.
import { builtInAgents } from "../lib/agents";
import { createDb } from "../lib/db";
import { toolSandboxKey } from "../lib/sandbox/internal-key";
import { shutdownTraceExport, withTraceExportFromEnv } from "../lib/telemetry";
import { createTether } from "../lib/tether";

const logger = {
  info() {},
  warn: (msg: string, data?: object) => console.error(`[warn] ${msg}`, JSON.stringify(data ?? {})),
  error: (msg: string, data?: object) => console.error(`[error] ${msg}`, JSON.stringify(data ?? {})),
};
const { runtime } = createTether({
  db: createDb(process.env.DATABASE_URL),
  wrapStore: (store) => withTraceExportFromEnv(store, { logger }),
  agents: builtInAgents,
  sandbox: { sandboxUrl: () => process.env.TETHER_SANDBOX_URL!, sandboxKey: () => toolSandboxKey(), timeoutMs: 5000 },
  retryBaseDelayMs: 5,
  logger,
  onFaultPoint: async (point, info) => {
    if (point === process.env.TETHER_FAULT_AT && info.tool === process.env.TETHER_FAULT_TOOL) {
      process.stdout.write(`FAULT ${point} ${info.tool} ${info.runId}\n`);
      await new Promise(() => {}); // hold here until killed
    }
  },
});
const worker = runtime.createWorker({ leaseMs: Number(process.env.TETHER_LEASE_MS ?? 1000), pollMs: 50 });
worker.start();
process.stdout.write(`READY ${worker.owner}\n`);
process.once("SIGTERM", async () => {
  await worker.stop();
  await shutdownTraceExport();
  process.stdout.write("STOPPED\n");
  process.exit(0);
});
