// The app's engine, once per process: the composition root (lib/tether.ts) given this process's database,
// the built-in agents (thinking with TETHER_MODEL when set), the tools with the sandbox's credential,
// trace export, who may decide which packet, and the sandbox's deploy callback.
import { agents as teamAgents, tools as teamTools } from "@/agents";
import { builtInAgents } from "@/lib/agents";
import { withModelPolicies } from "@/lib/agents/model-policy";
import { modelFromEnv, pricingFromEnv } from "@/lib/agents/model-provider";
import { recordAgentVersions } from "@/lib/agents/versions";
import { whyNotDecider } from "@/lib/inbox/queue-deciders";
import { applyDefaultPermissions } from "@/lib/sdk";
import { getDb, type Db } from "@/lib/db";
import { liveFeedOf, type TokenSink } from "@/lib/live/live-feed";
import {
  DEFAULT_CONCURRENCY,
  type AgentDefinition,
  type Logger,
  type Runtime,
  type ToolDefinition,
  type Worker,
  type WorkerOptions,
} from "@/lib/runtime";
import { isSandboxEnabled } from "@/lib/auth/mode";
import { getConfig, type Config } from "@/lib/config";
import {
  getDeployCallback,
  logDeployFinished,
  setDeployCallback,
  type DeployCallback,
  type DeployFinished,
} from "@/lib/sandbox/callbacks";
import { startSandboxDeployClock, type DeployClock } from "@/lib/sandbox/deploy-clock";
import { toolSandboxKey } from "@/lib/sandbox/internal-key";
import { retentionDaysFromEnv, startRetention, type Retention } from "@/lib/retention/start-retention";
import { startNotifications, type Notifications } from "@/lib/notifications/dispatcher";
import { startScheduleTicker, type ScheduleTicker } from "@/lib/schedules/ticker";
import { getGate } from "@/lib/commands/request-gate";
import { shutdownTraceExport, withTraceExportFromEnv } from "@/lib/telemetry";
import { createTether } from "@/lib/tether";
import { createBuiltInTools } from "@/lib/tools";
import { installGracefulShutdown, type GracefulShutdown } from "@/lib/lifecycle/shutdown";

export const consoleLogger: Logger = {
  info: (msg, data) => console.log(`[tether] ${msg}`, data ?? ""),
  warn: (msg, data) => console.warn(`[tether] ${msg}`, data ?? ""),
  error: (msg, data) => console.error(`[tether] ${msg}`, data ?? ""),
};

/** Where the tools reach the sandbox world: this console's own /api/sandbox unless told otherwise. */
export const sandboxUrl = () => getConfig().sandbox.url;

/** The sandbox reports a finished deploy "by callback": it becomes the run's deploy.finished signal. */
export function deliverDeployCallback(runtime: Runtime) {
  return async (event: DeployFinished) => {
    if (!event.runId) return;
    await runtime.deliverSignal(event.runId, {
      type: "deploy.finished",
      dedupKey: event.deployId,
      payload: { deployId: event.deployId, outcome: event.outcome, migration: event.migration },
    });
  };
}

/**
 * The deploy callback is registered only with the sandbox (TETHER_SANDBOX): with it off nothing can
 * complete a deploy into a run (the sandbox's routes are 404), and a runtime built earlier in this
 * process is unhooked. Real systems call back through the signed webhook route (lib/webhooks).
 */
export function sandboxDeployCallback(runtime: Runtime, config: Config = getConfig()): DeployCallback {
  return isSandboxEnabled(config) ? deliverDeployCallback(runtime) : logDeployFinished;
}

/**
 * TETHER_MODEL set (e.g. openai:gpt-4o-mini): the agents think with that model instead of their scripts; its
 * tokens stream to this process's live feed while a step runs (the run page shows them; both providers stream).
 */
function withConfiguredModel(agents: AgentDefinition[], tools: ToolDefinition[], tokens: TokenSink): AgentDefinition[] {
  const model = modelFromEnv();
  return model ? withModelPolicies(agents, tools, { model, pricing: pricingFromEnv(), tokens }) : agents;
}

// Survives Next.js dev-mode module reloads, so one process never runs two embedded workers.
const globalForTether = globalThis as unknown as {
  tetherRuntime?: { db: Db; runtime: Runtime };
  tetherWorker?: Worker;
  tetherWorkerFailure?: string;
  tetherRetention?: Retention;
  tetherNotifications?: Notifications;
  tetherSchedules?: ScheduleTicker;
  tetherShutdown?: GracefulShutdown;
};

export function getRuntime(): Runtime {
  const db = getDb(); // follows DATABASE_URL, so a process (or a test) that switches databases gets a new runtime
  if (globalForTether.tetherRuntime?.db !== db) {
    // The tools reach the sandbox with its internal credential (lib/sandbox/internal-key.ts).
    const tools = [...createBuiltInTools({ sandboxUrl, sandboxKey: () => toolSandboxKey() }), ...teamTools];
    const agents = withConfiguredModel(builtInAgents, tools, liveFeedOf(db));
    const { runtime } = createTether({
      db,
      agents,
      tools,
      // OTEL_EXPORTER_OTLP_ENDPOINT set: every run is also exported as one OpenTelemetry trace (docs/observability.md).
      wrapStore: (store) => withTraceExportFromEnv(store, { logger: consoleLogger }),
      authorizeDecision: (reviewer, packet) => whyNotDecider(db, reviewer, packet),
      logger: consoleLogger,
      carryReads: getConfig().worker.carryReads ? undefined : false,
    });
    // Reads TETHER_SANDBOX: a bad value stops start-up here (instrumentation, `npm run worker`).
    setDeployCallback(sandboxDeployCallback(runtime));
    globalForTether.tetherRuntime = { db, runtime };
    // The admin pages show each version's instructions, tools and plan; not awaited (start-up stays fast)
    // and a failure only costs that record, never the runtime.
    recordAgentVersions(db, agents, { model: getConfig().model.spec?.spec ?? null }).catch((error: unknown) =>
      consoleLogger.warn("could not record agent versions", { error: String(error) }),
    );
    // A team's agents (agents/index.ts) get the permissions their gates declare, once: an admin's edit is kept.
    void Promise.all(
      teamAgents.map((agent) => applyDefaultPermissions(runtime, agent, { by: "agents/index.ts" })),
    ).catch((error: unknown) => consoleLogger.warn("could not apply agent permissions", { error: String(error) }));
  }
  return globalForTether.tetherRuntime.runtime;
}

/**
 * The sandbox's deploy system finishes deploys on its own (TETHER_SANDBOX_DEPLOY_SECONDS) and calls back
 * through the hook getRuntime registers; once per process, only with the sandbox on.
 */
export function startDeployClockFromEnv(): DeployClock | null {
  getRuntime(); // registers the hook the clock calls
  return startSandboxDeployClock({
    db: getDb,
    onDeployFinished: (event) => getDeployCallback()(event),
    logger: consoleLogger,
  });
}

/** A worker's settings from the environment: the embedded worker and `npm run worker` read the same ones. */
export function workerOptionsFromEnv(config: Config = getConfig()): WorkerOptions {
  return { ...config.worker.options };
}

/** Retention's periodic purge (TETHER_RETENTION_DAYS; off when unset or 0), once per process. */
export function startRetentionFromEnv(): Retention {
  globalForTether.tetherRetention ??= startRetention({
    db: getDb(),
    retentionDays: retentionDaysFromEnv(),
    logger: consoleLogger,
  });
  return globalForTether.tetherRetention;
}

/** Tells the queues' notification channels (lib/notifications), once per process; TETHER_SMTP_URL etc. are read here. */
export function startNotificationsFromEnv(): Notifications {
  // Open gates' signed callbacks ride on the same outbox (lib/gates/callbacks.ts).
  globalForTether.tetherNotifications ??= startNotifications({
    db: getDb,
    logger: consoleLogger,
    gateView: (gateId) => getGate({ runtime: getRuntime() }, gateId),
  });
  return globalForTether.tetherNotifications;
}

/** Fires the schedules that are due (lib/schedules), once per process, beside the worker `owner`. */
export function startSchedules(owner: string): ScheduleTicker {
  globalForTether.tetherSchedules ??= startScheduleTicker({
    db: getDb(),
    runtime: getRuntime(),
    owner,
    logger: consoleLogger,
  });
  return globalForTether.tetherSchedules;
}

/** Whether this console runs a worker of its own: TETHER_EMBEDDED_WORKER=0 turns it off (standalone workers share Postgres). */
export const isEmbeddedWorkerEnabled = (config: Config = getConfig()) => config.worker.isEmbedded;

/** The in-process worker of the embedded mode (TETHER_EMBEDDED_WORKER=0 turns it off). */
export function startEmbeddedWorker(): Worker {
  if (!globalForTether.tetherWorker) {
    if (globalForTether.tetherShutdown?.isShuttingDown) throw new Error("the console is shutting down");
    globalForTether.tetherWorker = getRuntime().createWorker(workerOptionsFromEnv());
    globalForTether.tetherWorker.start();
    startRetentionFromEnv();
    startNotificationsFromEnv();
    startSchedules(globalForTether.tetherWorker.owner);
    consoleLogger.info("embedded worker started", {
      owner: globalForTether.tetherWorker.owner,
      concurrency: workerOptionsFromEnv().concurrency ?? DEFAULT_CONCURRENCY,
    });
  }
  return globalForTether.tetherWorker;
}

/** Instrumentation could not start the embedded worker: readiness reports it. */
export function recordEmbeddedWorkerFailure(error: unknown) {
  globalForTether.tetherWorkerFailure = error instanceof Error ? error.message : String(error);
}

/** What readiness says of this process's worker: off, not started (yet, or failed), or running. */
export function embeddedWorkerStatus(config: Config = getConfig()): {
  enabled: boolean;
  running: boolean;
  failure?: string;
} {
  if (!isEmbeddedWorkerEnabled(config)) return { enabled: false, running: false };
  return { enabled: true, running: !!globalForTether.tetherWorker, failure: globalForTether.tetherWorkerFailure };
}

/**
 * On SIGTERM/SIGINT the console drains like `npm run worker`: its worker stops claiming, the steps in hand
 * commit and their runs are given back at once; the outboxes stop and the last spans go out. Once per process.
 */
export function installConsoleShutdown(config: Config = getConfig()): GracefulShutdown {
  globalForTether.tetherShutdown ??= installGracefulShutdown({
    name: "console",
    shutdownMs: config.worker.shutdownMs,
    logger: consoleLogger,
    drain: async ({ graceMs }) => {
      const worker = globalForTether.tetherWorker;
      if (worker) consoleLogger.info("embedded worker stopping", { owner: worker.owner, inFlight: worker.inFlight });
      await Promise.all([
        worker?.stop({ graceMs }),
        globalForTether.tetherRetention?.stop(),
        globalForTether.tetherNotifications?.stop(),
        globalForTether.tetherSchedules?.stop(),
      ]);
      await shutdownTraceExport();
    },
  });
  return globalForTether.tetherShutdown;
}

/** True once this console received SIGTERM/SIGINT: readiness answers 503. */
export const isShuttingDown = () => globalForTether.tetherShutdown?.isShuttingDown ?? false;
