// How the console is deployed, as far as sign-in cares. No Prisma import (the proxy reads this).
import path from "node:path";

/** process.env, or a plain object in tests. */
export type Env = Record<string, string | undefined>;

/** The embedded default: no DATABASE_URL, or a SQLite one (same rule as lib/db.ts's providerOf). */
export function isEmbedded(env: Env = process.env): boolean {
  return !/^postgres(ql)?:\/\//.test(env.DATABASE_URL ?? "");
}

/**
 * Demo mode: the seed creates the demo accounts and the sign-in page lists them.
 * TETHER_DEMO=1 forces it on, TETHER_DEMO=0 off; unset, it is on for the embedded default only.
 */
export function isDemoMode(env: Env = process.env): boolean {
  if (env.TETHER_DEMO === "0" || env.TETHER_DEMO === "false") return false;
  if (env.TETHER_DEMO === "1" || env.TETHER_DEMO === "true") return true;
  return isEmbedded(env);
}

/**
 * The sandbox world (lib/sandbox, served at /api/sandbox/…) is part of the demo, not of the product:
 * TETHER_SANDBOX=1/true/on serves it, 0/false/off does not (any case); unset, it follows demo mode.
 * Any other value is a configuration error, thrown so that start-up fails and says why.
 */
export function isSandboxEnabled(env: Env = process.env): boolean {
  const raw = env.TETHER_SANDBOX?.trim().toLowerCase();
  if (!raw) return isDemoMode(env);
  if (raw === "1" || raw === "true" || raw === "on") return true;
  if (raw === "0" || raw === "false" || raw === "off") return false;
  throw new Error(`TETHER_SANDBOX must be 1/true/on or 0/false/off (unset: on in demo mode), got "${env.TETHER_SANDBOX}"`);
}

/**
 * The address `npm start` listens on (scripts/start.ts): HOSTNAME when set; else 127.0.0.1 in demo mode,
 * whose accounts have a published password, so only this machine can reach them; else undefined (Next's
 * default, every interface).
 */
export function listenHostname(env: Env = process.env): string | undefined {
  const hostname = env.HOSTNAME?.trim();
  if (hostname) return hostname;
  return isDemoMode(env) ? "127.0.0.1" : undefined;
}

export function dataDir(env: Env = process.env): string {
  return path.resolve(/*turbopackIgnore: true*/ env.TETHER_DATA_DIR ?? "./data");
}

export const DEMO_PASSWORD = "tether-demo";
export const DEMO_USERS = [
  { email: "reviewer@example.com", name: "Riley Reviewer", role: "reviewer" },
  { email: "operator@example.com", name: "Ola Operator", role: "operator" },
  { email: "admin@example.com", name: "Ada Admin", role: "admin" },
] as const;
