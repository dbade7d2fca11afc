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
import { dataDir, isSandboxEnabled } from "@/lib/auth/mode";
import { getConfig, MIN_SANDBOX_SECRET_LENGTH, type Config } from "@/lib/config";
import { ensureAuthSecretFile } from "@/lib/auth/secret";

export const SANDBOX_KEY_HEADER = "x-tether-sandbox-key";
export { MIN_SANDBOX_SECRET_LENGTH };

export const sandboxKeyFile = (config: Config = getConfig()) => path.join(dataDir(config), "sandbox-secret");

let cached: { file: string; key: string } | undefined;

/** TETHER_SANDBOX_SECRET, else the data directory's generated secret (created on first use). */
export function internalSandboxKey(config: Config = getConfig()): string {
  if (config.sandbox.secret) return config.sandbox.secret; // its length is checked by lib/config.ts
  const file = sandboxKeyFile(config);
  if (cached?.file !== file) cached = { file, key: ensureAuthSecretFile(file).secret };
  return cached.key;
}

/**
 * The key the built-in tools send: the internal key when this process serves the sandbox or was given
 * TETHER_SANDBOX_SECRET (a sandbox elsewhere); otherwise none, and nothing is written to the data dir.
 */
export function toolSandboxKey(config: Config = getConfig()): string | undefined {
  const wanted = Boolean(config.sandbox.secret) || isSandboxEnabled(config);
  return wanted ? internalSandboxKey(config) : undefined;
}

/** Constant-time equality of a presented key and the expected one (hashed first: lengths may differ). */
export function isSameKey(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
