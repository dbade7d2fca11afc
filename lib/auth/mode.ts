// How the console is deployed, as far as sign-in cares: read from the parsed configuration (lib/config.ts).
// No Prisma import (the proxy reads this).
import { getConfig, type Config } from "@/lib/config";

export type { Env } from "@/lib/config";

/** The embedded default: no DATABASE_URL, or a SQLite one (same rule as lib/db.ts's providerOf). */
export function isEmbedded(config: Config = getConfig()): boolean {
  return config.database.isEmbedded;
}

/**
 * Demo mode: the seed creates the demo accounts and the sign-in page lists them.
 * TETHER_DEMO=1 forces it on, TETHER_DEMO=0 off; unset, it is on for the embedded default only.
 */
export function isDemoMode(config: Config = getConfig()): boolean {
  return config.auth.isDemoMode;
}

/**
 * The sandbox world (lib/sandbox, served at /api/sandbox/…) is part of the demo, not of the product:
 * TETHER_SANDBOX=1/true/on serves it, 0/false/off does not (any case); unset, it follows demo mode.
 * Any other value is a configuration error (getConfig throws), so that start-up fails and says why.
 */
export function isSandboxEnabled(config: Config = getConfig()): boolean {
  return config.sandbox.isEnabled;
}

/**
 * The address `npm start` listens on (scripts/start.ts): HOSTNAME when set; else 127.0.0.1 in demo mode,
 * whose accounts have a published password, so only this machine can reach them; else undefined (Next's
 * default, every interface).
 */
export function listenHostname(config: Config = getConfig()): string | undefined {
  return config.server.listenHostname;
}

export function dataDir(config: Config = getConfig()): string {
  return config.dataDir;
}

export const DEMO_PASSWORD = "tether-demo";
export const DEMO_USERS = [
  { email: "reviewer@example.com", name: "Riley Reviewer", role: "reviewer" },
  { email: "operator@example.com", name: "Ola Operator", role: "operator" },
  { email: "admin@example.com", name: "Ada Admin", role: "admin" },
] as const;
