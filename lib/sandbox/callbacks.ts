// How the deploy system reports "your migration finished": it calls a hook, possibly several times for
// the same deploy (real webhooks are delivered at least once), so the receiver must deduplicate.
//
// In the app, the composition root (lib/runtime.server.ts) registers the runtime's signal delivery once,
// and only with the sandbox on (TETHER_SANDBOX):
//   setDeployCallback((event) => runtime.deliverSignal(...));
// Until something is registered, deliveries are only logged. Two things fire the hook: the deploy
// system's own clock (deploy-clock.ts: a deploy finishes by itself after TETHER_SANDBOX_DEPLOY_SECONDS),
// which the console starts only with the sandbox on, and `POST /api/sandbox/deploys/:id/complete`,
// behind the sandbox's credential check (access.ts): with the sandbox off that route does not exist.
// Real systems call back through the signed webhook route (`POST /api/webhooks/:source`, lib/webhooks).
// `startSandboxServer(db, { onDeployFinished })` overrides the hook for the requests that server handles
// (tests and the seed use that); a clock started with `startDeployClock` is given its hook the same way.
//
// The hook lives on globalThis, not in a module variable: Next.js may load this module once per route
// bundle, and the route that completes a deploy must see the hook registered elsewhere.

export type DeployFinished = {
  deployId: string;
  runId: string | null;
  outcome: "succeeded" | "failed";
  migration: string;
};

export type DeployCallback = (event: DeployFinished) => void | Promise<void>;

const KEY = Symbol.for("tether.sandbox.deployCallback");
type Holder = { [KEY]?: DeployCallback };

export const logDeployFinished: DeployCallback = (event) => {
  console.info(
    `[sandbox] deploy ${event.deployId} ${event.outcome} (run ${event.runId ?? "-"}): no deploy callback registered`,
  );
};

/** Registers the process-wide deploy-completion hook; returns the previous one. */
export function setDeployCallback(fn: DeployCallback): DeployCallback {
  const previous = getDeployCallback();
  (globalThis as Holder)[KEY] = fn;
  return previous;
}

export function getDeployCallback(): DeployCallback {
  return (globalThis as Holder)[KEY] ?? logDeployFinished;
}
