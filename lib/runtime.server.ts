// The one composition root: wires Prisma, the agents and the tools into the engine, once per process.
import { builtInAgents } from "@/lib/agents";
import { getDb, type Db } from "@/lib/db";
import { createRuntime, type Logger, type Runtime, type Worker } from "@/lib/runtime";
import { createPrismaStore } from "@/lib/store/prisma-store";
import { builtInTools } from "@/lib/tools";

const consoleLogger: Logger = {
  info: (msg, data) => console.log(`[tether] ${msg}`, data ?? ""),
  warn: (msg, data) => console.warn(`[tether] ${msg}`, data ?? ""),
  error: (msg, data) => console.error(`[tether] ${msg}`, data ?? ""),
};

// Survives Next.js dev-mode module reloads, so one process never runs two embedded workers.
const globalForTether = globalThis as unknown as { tetherRuntime?: { db: Db; runtime: Runtime }; tetherWorker?: Worker };

export function getRuntime(): Runtime {
  const db = getDb(); // follows DATABASE_URL, so a process (or a test) that switches databases gets a new runtime
  if (globalForTether.tetherRuntime?.db !== db) {
    globalForTether.tetherRuntime = {
      db,
      runtime: createRuntime({ store: createPrismaStore(db), agents: builtInAgents, tools: builtInTools, logger: consoleLogger }),
    };
  }
  return globalForTether.tetherRuntime.runtime;
}

/** The in-process worker of the embedded mode (TETHER_EMBEDDED_WORKER=0 turns it off). */
export function startEmbeddedWorker(): Worker {
  if (!globalForTether.tetherWorker) {
    globalForTether.tetherWorker = getRuntime().createWorker();
    globalForTether.tetherWorker.start();
    consoleLogger.info("embedded worker started", { owner: globalForTether.tetherWorker.owner });
  }
  return globalForTether.tetherWorker;
}
