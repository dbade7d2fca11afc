import { isIP } from "node:net";
import { getConfig, type Config } from "@/lib/config";
import type { Db } from "@/lib/db";
import type { AuditEntry } from "@/lib/audit/audit-log";
import { createMemoryFailureCounter, type FailureCounter, type ThrottleLimit } from "@/lib/limits/failure-counter";
import { failureCounterFor } from "@/lib/limits/limiter-for";
import type { SessionUser } from "./rbac";
import { trustedProxyHops } from "./trust-proxy";
import { checkCredentials, normalizeEmail } from "./users";

// Failed password sign-ins, counted twice: per account (10 failures in 15 minutes lock the email) and
// per client address (30 failures in 15 minutes lock the address, whatever accounts they were for, so
// trying one password on many accounts is stopped too). A lock lasts until the oldest counted failure
// leaves the window. A success clears its account's count, never its address's: one known password
// must not let an address reset its count between guesses. The counts live where lib/limits puts them:
// in a Postgres table every console replica shares, or in the process's memory on SQLite.

export type { ThrottleLimit };
/** Who is trying: the typed email (normalised; "" when none) and the client's address (null when unknown). */
export type SignInAttempt = { email: string; address: string | null };
/** Why an attempt is refused before the password is checked, and for how long. */
export type SignInLock = { by: "account" | "address"; retryAfterMs: number };

export const SIGN_IN_LIMITS = {
  perAccount: { max: 10, windowMs: 15 * 60_000 },
  perAddress: { max: 30, windowMs: 15 * 60_000 },
} satisfies Record<string, ThrottleLimit>;

/** The throttle over two failure counts: one keyed by account (email), one by address. */
export function signInThrottleOver({ accounts, addresses }: { accounts: FailureCounter; addresses: FailureCounter }) {
  const addressKey = (attempt: SignInAttempt) => (attempt.address ? addressThrottleKey(attempt.address) : null);
  return {
    /** The lock on this attempt (the address's first: changing accounts does not lift it), or null. */
    async lockOf(attempt: SignInAttempt): Promise<SignInLock | null> {
      const key = addressKey(attempt);
      const byAddress = key ? await addresses.retryAfterMs(key) : 0;
      if (byAddress > 0) return { by: "address", retryAfterMs: byAddress };
      const byAccount = attempt.email ? await accounts.retryAfterMs(attempt.email) : 0;
      return byAccount > 0 ? { by: "account", retryAfterMs: byAccount } : null;
    },
    async fail(attempt: SignInAttempt): Promise<void> {
      const key = addressKey(attempt);
      if (key) await addresses.fail(key);
      if (attempt.email) await accounts.fail(attempt.email);
    },
    async succeed(attempt: SignInAttempt): Promise<void> {
      if (attempt.email) await accounts.reset(attempt.email);
    },
  };
}

/** A throttle counting in this process's memory (tests give it a clock). */
export function createSignInThrottle({
  perAccount,
  perAddress,
  now,
}: {
  perAccount: ThrottleLimit;
  perAddress: ThrottleLimit;
  now?: () => number;
}) {
  return signInThrottleOver({
    accounts: createMemoryFailureCounter({ ...perAccount, now }),
    addresses: createMemoryFailureCounter({ ...perAddress, now }),
  });
}

/** The throttle for password sign-ins on this database (SIGN_IN_LIMITS unless given): shared by replicas on Postgres. */
export function signInThrottleFor(
  db: Db,
  limits: { perAccount: ThrottleLimit; perAddress: ThrottleLimit } = SIGN_IN_LIMITS,
): SignInThrottle {
  return signInThrottleOver({
    accounts: failureCounterFor(db, { ...limits.perAccount, namespace: "signin-account" }),
    addresses: failureCounterFor(db, { ...limits.perAddress, namespace: "signin-address" }),
  });
}

export type SignInThrottle = ReturnType<typeof signInThrottleOver>;

/**
 * The Credentials provider's authorize (lib/auth.ts): a locked attempt is refused (and audited) before
 * the password is checked, and is not counted again; a failure counts for the account and the address.
 */
export async function authorizeThrottled(
  deps: { db: Db; throttle: SignInThrottle; audit: (entry: AuditEntry) => Promise<void> },
  credentials: unknown,
  headers: Headers,
): Promise<SessionUser | null> {
  const email = (credentials as { email?: unknown } | undefined)?.email;
  const typed = typeof email === "string" ? normalizeEmail(email).slice(0, 320) : "";
  const attempt = { email: typed, address: clientAddress(headers) };
  const lock = await deps.throttle.lockOf(attempt);
  if (lock) {
    const reason = lock.by === "address" ? "throttled-address" : "throttled";
    if (typed)
      await deps.audit({
        actor: typed,
        action: "auth.signin_failed",
        data: { provider: "credentials", reason, address: attempt.address },
      });
    return null;
  }
  const check = await checkCredentials(deps.db, credentials);
  if (check.ok) {
    await deps.throttle.succeed(attempt);
    return check.user;
  }
  await deps.throttle.fail(attempt);
  if (typed)
    await deps.audit({
      actor: typed,
      action: "auth.signin_failed",
      data: { provider: "credentials", reason: check.reason, address: attempt.address },
    });
  return null;
}

/** The sentence the sign-in form shows for a lock. */
export function signInLockMessage(lock: SignInLock): string {
  const minutes = Math.max(1, Math.ceil(lock.retryAfterMs / 60_000));
  const wait = `Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
  return lock.by === "address"
    ? `Too many failed sign-ins from your network address, for any account. ${wait}`
    : `Too many failed attempts for this account. ${wait}`;
}

// ---- the client's address

/**
 * The address a request came from, as an IP address (IPv4-mapped IPv6 as IPv4), or null. The app never
 * sees the socket: `next start` passes the connection's address in X-Forwarded-For, but only when the
 * request has none, and each proxy appends the address it was reached from. So the address is the
 * entry the nearest trusted proxy wrote: the (TETHER_TRUST_PROXY)th from the right, or the last one
 * without a proxy. Never the first entry, which whoever sent the request chose. Without a proxy a
 * client that reaches the port directly can send its own header: set TETHER_TRUST_PROXY behind one.
 */
export function clientAddress(headers: Headers, config: Config = getConfig()): string | null {
  const entries = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) return null;
  const entry = entries[Math.max(0, entries.length - Math.max(1, trustedProxyHops(config)))];
  return normaliseAddress(entry);
}

function normaliseAddress(entry: string): string | null {
  let text = entry.toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(":")); // IPv4 with a port
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (mapped) text = mapped[1];
  return isIP(text) ? text : null;
}

/** The key an address is counted under: IPv4 as is, IPv6 by its /64 (one host usually holds a whole /64). */
export function addressThrottleKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head, tail] = address.replace(/%.*$/, "").split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}
