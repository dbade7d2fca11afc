// Next.js calls register() once per server process, before it serves requests.
// It builds the runtime (which also registers the sandbox's deploy callback), starts the sandbox's deploy
// clock, and — in the embedded default (one process, SQLite) — starts a worker to move runs forward. Node.js runtime only (the
// engine needs Node and Prisma; the dynamic import keeps it out of any edge bundle).
// TETHER_EMBEDDED_WORKER=0 turns the worker off when standalone workers (`npm run worker`) share Postgres.
export async function register() {
  // NEXT_RUNTIME is Next's own switch, inlined at build time so the edge bundle drops the import below;
  // it is not configuration, so it is read here and not in lib/config.ts.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // What starts here works across workspaces (the worker claims every workspace's runs): it is the system.
  const { asSystem } = await import("@/lib/runtime/workspace");
  return asSystem(startServerSide);
}

async function startServerSide() {
  const {
    getRuntime,
    installConsoleShutdown,
    isEmbeddedWorkerEnabled,
    recordEmbeddedWorkerFailure,
    startDeployClockFromEnv,
    startEmbeddedWorker,
  } = await import("@/lib/runtime.server");
  getRuntime();
  // SIGTERM drains the worker (its runs are given back at once) before Next's own handler exits (lib/lifecycle/shutdown.ts).
  installConsoleShutdown();
  // The console serves the sandbox (TETHER_SANDBOX), worker or not: its deploys finish on their own.
  startDeployClockFromEnv();
  if (!isEmbeddedWorkerEnabled()) return;
  // register() blocks the server until it returns, so the worker's loop is not awaited; a start
  // failure is logged rather than taking the console down with it.
  Promise.resolve()
    .then(() => startEmbeddedWorker())
    .catch((error: unknown) => {
      recordEmbeddedWorkerFailure(error); // /api/health/ready says so
      console.error("[tether] embedded worker failed to start", error);
    });
}
