// Password hashing with scrypt (node:crypto, a memory-hard KDF; no native dependency).
// Stored as `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64url), so the cost can be raised later and old
// hashes still verify.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

// N=2^15, r=8: 32 MiB and ~50–100 ms a hash on a small server.
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const maxmem = (N: number, r: number) => 128 * N * r * 2;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { ...COST, maxmem: maxmem(COST.N, COST.r) });
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Constant-time comparison; false (never a throw) for a malformed or foreign hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  if (scheme !== "scrypt" || !salt || !hash || ![N, R, P].every((x) => Number.isInteger(x) && x > 0) || N > 2 ** 20)
    return false;
  const expected = Buffer.from(hash, "base64url");
  if (expected.length === 0) return false;
  const key = await scrypt(password.normalize("NFKC"), Buffer.from(salt, "base64url"), expected.length, {
    N,
    r: R,
    p: P,
    maxmem: maxmem(N, R),
  });
  return timingSafeEqual(key, expected);
}

/** Verifying against this when the user does not exist keeps the response time from revealing it. */
let dummyHash: Promise<string> | undefined;
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(password, await (dummyHash ??= hashPassword("not-a-real-password")));
  return false;
}

const COMMON = new Set([
  "password",
  "password1",
  "password123",
  "123456789012",
  "qwertyuiop",
  "letmein",
  "welcome",
  "admin",
  "administrator",
  "changeme",
  "tether",
  "tether-demo",
  "iloveyou",
  "trustno1",
]);
export const MIN_PASSWORD_LENGTH = 12;

/** Why a password is too weak to set, or null when it is acceptable. */
export function passwordWeakness(password: string, email?: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > 256) return "Use at most 256 characters.";
  const lower = password.toLowerCase();
  if (COMMON.has(lower) || COMMON.has(lower.replace(/[^a-z]/g, ""))) return "That password is too common.";
  if (/^(.+?)\1+$/.test(lower)) return "Do not repeat the same part.";
  if (email && lower.includes(email.toLowerCase().split("@")[0]) && email.split("@")[0].length >= 4)
    return "Do not use your email address in the password.";
  if (new Set(password).size < 6) return "Use more different characters.";
  return null;
}
