// The sandbox's internal credential: how Tether's own built-in tools reach /api/sandbox, where every
// request needs a credential (access.ts). It is one random secret per deployment:
//   - TETHER_SANDBOX_SECRET when set (at least 32 characters): every process of the deployment (the
//     console, `npm run worker` on other machines) must then be given the same value;
//   - else <TETHER_DATA_DIR>/sandbox-secret (mode 600), generated on first use (race-safe, like the
//     session secret in lib/auth/secret.ts), so the console and a worker on the same machine share it
//     with nothing configured.
// The tools send it in the X-Tether-Sandbox-Key header; the gate compares it in constant time.
import { createHash, timingSafeEqual } from "node:crypto";
import path from "node:path";
import { dataDir, isSandboxEnabled, type Env } from "@/lib/auth/mode";
import { ensureAuthSecretFile } from "@/lib/auth/secret";

export const SANDBOX_KEY_HEADER = "x-tether-sandbox-key";
export const MIN_SANDBOX_SECRET_LENGTH = 32;

export const sandboxKeyFile = (env: Env = process.env) => path.join(dataDir(env), "sandbox-secret");

let cached: { file: string; key: string } | undefined;

/** TETHER_SANDBOX_SECRET, else the data directory's generated secret (created on first use). */
export function internalSandboxKey(env: Env = process.env): string {
  const configured = env.TETHER_SANDBOX_SECRET?.trim();
  if (configured) {
    if (configured.length < MIN_SANDBOX_SECRET_LENGTH) throw new Error(`TETHER_SANDBOX_SECRET must be at least ${MIN_SANDBOX_SECRET_LENGTH} characters`);
    return configured;
  }
  const file = sandboxKeyFile(env);
  if (cached?.file !== file) cached = { file, key: ensureAuthSecretFile(file).secret };
  return cached.key;
}

/**
 * The key the built-in tools send: the internal key when this process serves the sandbox or was given
 * TETHER_SANDBOX_SECRET (a sandbox elsewhere); otherwise none, and nothing is written to the data dir.
 */
export function toolSandboxKey(env: Env = process.env): string | undefined {
  const wanted = Boolean(env.TETHER_SANDBOX_SECRET?.trim()) || isSandboxEnabled(env);
  return wanted ? internalSandboxKey(env) : undefined;
}

/** Constant-time equality of a presented key and the expected one (hashed first: lengths may differ). */
export function isSameKey(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
