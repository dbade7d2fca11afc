// How the deploy system reports "your migration finished": it calls a hook, possibly several times for
// the same deploy (real webhooks are delivered at least once), so the receiver must deduplicate.
//
// In the app, the composition root registers the runtime's signal delivery once:
//   setDeployCallback((event) => runtime.deliverSignal(...));
// Until something is registered, deliveries are only logged. `startSandboxServer(db, { onDeployFinished })`
// overrides the hook for the requests that server handles (tests use that).
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
  console.info(`[sandbox] deploy ${event.deployId} ${event.outcome} (run ${event.runId ?? "-"}): no deploy callback registered`);
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
