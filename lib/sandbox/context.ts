import { AsyncLocalStorage } from "node:async_hooks";
import { getDb, type Db } from "@/lib/db";
import { sandboxAccessFromEnv, type SandboxAccess } from "./access";
import { getDeployCallback, type DeployCallback } from "./callbacks";

// What a sandbox route handler works with. Under Next.js there is no scope: the process-wide database
// (getDb), the registered deploy hook, Math.random and the credential gate of access.ts.
// `startSandboxServer` runs each request inside a scope with its own database, hook, random source and
// gate, so tests can run a world per database and make error rates deterministic.

export type SandboxContext = {
  db: Db;
  /** Decides injected errors: a request fails when random() < errorRate. */
  random: () => number;
  onDeployFinished: DeployCallback;
  /** Who may make the request (access.ts); checked before anything else, the body included. */
  access: SandboxAccess;
};

const scope = new AsyncLocalStorage<SandboxContext>();

export function runInSandboxScope<T>(context: SandboxContext, fn: () => T): T {
  return scope.run(context, fn);
}

export function getSandboxContext(): SandboxContext {
  return (
    scope.getStore() ?? {
      db: getDb(),
      random: Math.random,
      onDeployFinished: getDeployCallback(),
      access: sandboxAccessFromEnv,
    }
  );
}

/** A deterministic random source (mulberry32), for evals that want a reproducible fault schedule. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
