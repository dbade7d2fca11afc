// Next.js calls register() once per server process, before it serves requests.
// The embedded default (one process, SQLite) needs a worker to move runs forward, so the console
// process hosts one. It runs only in the Node.js runtime (the engine needs Node and Prisma; the
// dynamic import keeps it out of any edge bundle) and can be turned off with
// TETHER_EMBEDDED_WORKER=0 when standalone workers (`npm run worker`) share a Postgres database.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.TETHER_EMBEDDED_WORKER === "0") return;
  const { startEmbeddedWorker } = await import("@/lib/runtime.server");
  // register() blocks the server until it returns, so the worker's loop is not awaited; a start
  // failure is logged rather than taking the console down with it.
  Promise.resolve()
    .then(() => startEmbeddedWorker())
    .catch((error: unknown) => console.error("[tether] embedded worker failed to start", error));
}
