// AUTH_SECRET signs and encrypts the session cookie. Set it in the environment for production (every
// console process must share it); when it is unset, one is generated once into
// <TETHER_DATA_DIR>/auth-secret (mode 600) — by scripts/setup.ts, or by the first request if set-up
// did not run — so a fresh clone works with nothing configured. It is never committed.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getConfig, type Config } from "@/lib/config";
import { dataDir } from "./mode";

export const authSecretFile = (config: Config = getConfig()) => path.join(dataDir(config), "auth-secret");

/** Reads the secret file, creating it (race-safe: exclusive create, the loser reads the winner's). */
export function ensureAuthSecretFile(file: string): { secret: string; created: boolean } {
  try {
    const secret = readFileSync(file, "utf8").trim();
    if (secret.length >= 32) return { secret, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Someone else created it meanwhile, or it held a too-short value: reread, or replace a bad one.
    const existing = readFileSync(file, "utf8").trim();
    if (existing.length >= 32) return { secret: existing, created: false };
    writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  return { secret, created: true };
}

let cached: { key: string; secret: string } | undefined;

/** AUTH_SECRET if set, else the data directory's generated secret. */
export function resolveAuthSecret(config: Config = getConfig()): string {
  if (config.auth.secret) return config.auth.secret;
  const file = authSecretFile(config);
  if (cached?.key !== file) cached = { key: file, secret: ensureAuthSecretFile(file).secret };
  return cached.secret;
}
