import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../lib/config";
import { safeCallbackPath, trustHostFromEnv } from "../lib/auth/config";
import { isDemoMode, listenHostname } from "../lib/auth/mode";
import { oidcDefaultRole, oidcProviderFromEnv } from "../lib/auth/oidc";
import { passwordWeakness } from "../lib/auth/password";
import { can, requireScope, ROLE_SCOPES, ROLES, SCOPES, type Scope } from "../lib/auth/rbac";
import { ensureAuthSecretFile, resolveAuthSecret } from "../lib/auth/secret";
import {
  addressThrottleKey,
  clientAddress,
  createSignInThrottle,
  SIGN_IN_LIMITS,
  signInLockMessage,
} from "../lib/auth/throttle";
import { createMemoryFailureCounter } from "../lib/limits/failure-counter";
import { trustedProxyHops } from "../lib/auth/trust-proxy";

// Sign-in and roles without a database: the RBAC table, configuration from the environment, the
// generated session secret, password strength and the sign-in throttle.

describe("RBAC", () => {
  it("the role table: reviewers decide, operators also operate runs, admins do everything", () => {
    const table = Object.fromEntries(ROLES.map((role) => [role, SCOPES.filter((s) => can(role, s))]));
    expect(table).toEqual({
      reviewer: ["runs:read", "packets:read", "packets:decide"],
      operator: ["runs:read", "packets:read", "packets:decide", "runs:operate"],
      admin: [...SCOPES],
    });
    // every role's scopes are known scopes, and the roles nest
    for (const role of ROLES) for (const scope of ROLE_SCOPES[role]) expect(SCOPES).toContain(scope);
    for (const scope of ROLE_SCOPES.reviewer) expect(can("operator", scope)).toBe(true);
  });

  it("can() is false without a role; requireScope throws UNAUTHENTICATED / FORBIDDEN", () => {
    expect(can(null, "runs:read")).toBe(false);
    expect(can(undefined, "runs:read")).toBe(false);
    const reviewer = { id: "u", email: "r@test", name: null, role: "reviewer" as const };
    expect(() => requireScope(null, "runs:read")).toThrow(expect.objectContaining({ code: "UNAUTHENTICATED" }));
    expect(() => requireScope(reviewer, "admin:manage")).toThrow(expect.objectContaining({ code: "FORBIDDEN" }));
    expect(() => requireScope(reviewer, "runs:operate" as Scope)).toThrow(
      expect.objectContaining({ code: "FORBIDDEN" }),
    );
    expect(requireScope(reviewer, "packets:decide")).toBe(reviewer);
  });
});

describe("configuration from the environment", () => {
  it("demo mode: on for the embedded default, off for Postgres, TETHER_DEMO wins", () => {
    expect(isDemoMode(loadConfig({}))).toBe(true);
    expect(isDemoMode(loadConfig({ DATABASE_URL: "file:./data/x.db" }))).toBe(true);
    expect(isDemoMode(loadConfig({ DATABASE_URL: "postgresql://db/tether" }))).toBe(false);
    expect(isDemoMode(loadConfig({ TETHER_DEMO: "0" }))).toBe(false);
    expect(isDemoMode(loadConfig({ TETHER_DEMO: "1", DATABASE_URL: "postgres://db/tether" }))).toBe(true);
  });

  it("npm start listens on 127.0.0.1 in demo mode unless HOSTNAME says otherwise; outside it, on Next's default", () => {
    expect(listenHostname(loadConfig({}))).toBe("127.0.0.1");
    expect(listenHostname(loadConfig({ TETHER_DEMO: "1", DATABASE_URL: "postgres://db/tether" }))).toBe("127.0.0.1");
    expect(listenHostname(loadConfig({ HOSTNAME: "0.0.0.0" }))).toBe("0.0.0.0");
    expect(listenHostname(loadConfig({ HOSTNAME: " " }))).toBe("127.0.0.1");
    expect(listenHostname(loadConfig({ DATABASE_URL: "postgresql://db/tether" }))).toBeUndefined();
    expect(listenHostname(loadConfig({ TETHER_DEMO: "0" }))).toBeUndefined();
    expect(listenHostname(loadConfig({ TETHER_DEMO: "0", HOSTNAME: "10.0.0.5" }))).toBe("10.0.0.5");
  });

  it("trusts the host header when embedded or when AUTH_URL is set; AUTH_TRUST_HOST wins", () => {
    expect(trustHostFromEnv(loadConfig({}))).toBe(true);
    expect(trustHostFromEnv(loadConfig({ DATABASE_URL: "postgresql://db/t" }))).toBe(false);
    expect(
      trustHostFromEnv(loadConfig({ DATABASE_URL: "postgresql://db/t", AUTH_URL: "https://tether.example.com" })),
    ).toBe(true);
    expect(trustHostFromEnv(loadConfig({ DATABASE_URL: "postgresql://db/t", AUTH_TRUST_HOST: "true" }))).toBe(true);
    expect(trustHostFromEnv(loadConfig({ AUTH_TRUST_HOST: "false" }))).toBe(false);
  });

  it("a callbackUrl is a path on this site, never another origin or the sign-in page itself; anything else is /", () => {
    expect(safeCallbackPath("/runs/run_1?checkpoint=2")).toBe("/runs/run_1?checkpoint=2");
    expect(safeCallbackPath("/runs?status=FAILED")).toBe("/runs?status=FAILED");
    expect(safeCallbackPath("/inbox")).toBe("/inbox");
    expect(safeCallbackPath("/")).toBe("/");
    const hostile = [
      // browsers drop tabs and newlines and read "\\" as "/" ("/\t/evil.example" lands on //evil.example): none may appear
      "/\t/evil.example/x",
      "/\n/evil.example",
      "/\r\n/evil.example",
      "/\\evil.example",
      "/\\/evil.example",
      "/runs\\..\\..\\x",
      "/\u0000/evil.example",
      "/\u007f",
      "//evil.example",
      "//evil.example/x",
      "https://evil.example",
      "http:/evil.example",
      "javascript:alert(1)",
      " /runs",
      "\t/runs",
      "",
      undefined,
      null,
      42,
      ["/runs"],
      "/signin",
      "/signin?callbackUrl=/x",
      "/api/auth/signout",
    ];
    for (const bad of hostile) expect(safeCallbackPath(bad), JSON.stringify(bad)).toBe("/");
  });

  it("an OIDC provider exists only when issuer and client id are configured", () => {
    expect(oidcProviderFromEnv(loadConfig({}))).toBeNull();
    expect(oidcProviderFromEnv(loadConfig({ AUTH_OIDC_ISSUER: "https://idp.example.com" }))).toBeNull();
    expect(
      oidcProviderFromEnv(
        loadConfig({
          AUTH_OIDC_ISSUER: "https://idp.example.com",
          AUTH_OIDC_ID: "tether",
          AUTH_OIDC_SECRET: "s3cret",
          AUTH_OIDC_NAME: "Okta",
        }),
      ),
    ).toMatchObject({
      id: "oidc",
      type: "oidc",
      name: "Okta",
      issuer: "https://idp.example.com",
      clientId: "tether",
      clientSecret: "s3cret",
      checks: ["pkce", "state", "nonce"],
    });
    expect(oidcDefaultRole(loadConfig({}))).toBe("none"); // nobody is let in by default: an admin adds people, or sets a role
    expect(oidcDefaultRole(loadConfig({ AUTH_OIDC_DEFAULT_ROLE: "reviewer" }))).toBe("reviewer");
    expect(oidcDefaultRole(loadConfig({ AUTH_OIDC_DEFAULT_ROLE: "None" }))).toBe("none");
    expect(oidcDefaultRole(loadConfig({ AUTH_OIDC_DEFAULT_ROLE: "operator" }))).toBe("operator");
    expect(() => oidcDefaultRole(loadConfig({ AUTH_OIDC_DEFAULT_ROLE: "root" }))).toThrow(/AUTH_OIDC_DEFAULT_ROLE/);
  });
});

describe("the session secret", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tether-secret-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is generated once into the data dir with mode 600, then read back", () => {
    const file = path.join(dir, "nested", "auth-secret");
    const first = ensureAuthSecretFile(file);
    expect(first.created).toBe(true);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(ensureAuthSecretFile(file)).toEqual({ secret: first.secret, created: false });
    expect(resolveAuthSecret(loadConfig({ TETHER_DATA_DIR: path.join(dir, "nested") }))).toBe(first.secret);
    expect(readFileSync(file, "utf8").trim()).toBe(first.secret);
  });

  it("AUTH_SECRET wins, and nothing is written then", () => {
    expect(
      resolveAuthSecret(loadConfig({ AUTH_SECRET: "from-the-environment", TETHER_DATA_DIR: path.join(dir, "unused") })),
    ).toBe("from-the-environment");
    expect(() => statSync(path.join(dir, "unused"))).toThrow();
  });
});

describe("passwords a person may set", () => {
  it("refuses short, common, repetitive and email-based passwords", () => {
    expect(passwordWeakness("tether-demo")).toMatch(/12 characters/);
    expect(passwordWeakness("Password123!")).toMatch(/common/);
    expect(passwordWeakness("abcabcabcabc")).toBeTruthy();
    expect(passwordWeakness("aaaaaaaaaaaaaaa")).toBeTruthy();
    expect(passwordWeakness("grace.hopper-2026", "grace.hopper@example.com")).toMatch(/email/);
    expect(passwordWeakness("correct horse battery staple")).toBeNull();
  });
});

describe("sign-in throttle", () => {
  it("locks an email after max failures within the window, until it passes or a success resets it", async () => {
    let now = 0;
    const throttle = createMemoryFailureCounter({ max: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) {
      expect(await throttle.retryAfterMs("a@x")).toBe(0);
      await throttle.fail("a@x");
      now += 1_000;
    }
    expect(await throttle.retryAfterMs("a@x")).toBe(57_000);
    expect(await throttle.retryAfterMs("b@x")).toBe(0);
    now += 57_000;
    expect(await throttle.retryAfterMs("a@x")).toBe(0);
    await throttle.fail("a@x");
    await throttle.reset("a@x");
    expect(await throttle.retryAfterMs("a@x")).toBe(0);
  });

  it("per account and per address: the address's lock first, whatever the account; a success clears only the account", async () => {
    let now = 0;
    const throttle = createSignInThrottle({
      perAccount: { max: 2, windowMs: 60_000 },
      perAddress: { max: 3, windowMs: 120_000 },
      now: () => now,
    });
    const from = (email: string, address: string | null = "192.0.2.7") => ({ email, address });
    await throttle.fail(from("a@x"));
    await throttle.succeed(from("a@x")); // clears a@x, not the address
    await throttle.fail(from("a@x"));
    expect(await throttle.lockOf(from("a@x"))).toBeNull();
    await throttle.fail(from("a@x"));
    expect(await throttle.lockOf(from("a@x", "192.0.2.8"))).toEqual({ by: "account", retryAfterMs: 60_000 });
    expect(await throttle.lockOf(from("b@x"))).toEqual({ by: "address", retryAfterMs: 120_000 }); // three failures from 192.0.2.7
    expect((await throttle.lockOf(from("a@x")))?.by).toBe("address");
    expect(await throttle.lockOf(from("b@x", "192.0.2.8"))).toBeNull();
    expect(await throttle.lockOf(from("b@x", null))).toBeNull(); // no address known: the account's count only
    now += 120_000;
    expect(await throttle.lockOf(from("b@x"))).toBeNull();
  });

  it("the limits: 10 failures per account, 30 per address, in 15 minutes", () => {
    expect(SIGN_IN_LIMITS).toEqual({
      perAccount: { max: 10, windowMs: 900_000 },
      perAddress: { max: 30, windowMs: 900_000 },
    });
  });

  it("the sign-in form says which lock it is, in whole minutes", () => {
    expect(signInLockMessage({ by: "address", retryAfterMs: 14 * 60_000 + 1 })).toBe(
      "Too many failed sign-ins from your network address, for any account. Try again in 15 minutes.",
    );
    expect(signInLockMessage({ by: "account", retryAfterMs: 30_000 })).toBe(
      "Too many failed attempts for this account. Try again in 1 minute.",
    );
  });

  it("the client's address: the entry the nearest trusted proxy wrote in X-Forwarded-For, never the client's own first entry", () => {
    const at = (xff: string | null, hops?: string) =>
      clientAddress(
        new Headers(xff === null ? {} : { "x-forwarded-for": xff }),
        loadConfig({ TETHER_TRUST_PROXY: hops }),
      );
    expect(at("203.0.113.9")).toBe("203.0.113.9"); // next start: the socket's address
    expect(at("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(at("1.1.1.1, 203.0.113.9", "1")).toBe("203.0.113.9"); // one proxy appended the client's address
    expect(at("1.1.1.1, 203.0.113.9, 10.0.0.2", "2")).toBe("203.0.113.9");
    expect(at("203.0.113.9", "2")).toBe("203.0.113.9"); // a shorter path than configured: the only entry
    expect(at("1.1.1.1 , [2001:db8::1]:443", "true")).toBe("2001:db8::1");
    expect(at("198.51.100.4:5060", "1")).toBe("198.51.100.4");
    expect(at("unknown", "1")).toBeNull();
    expect(at(null)).toBeNull();
    expect(trustedProxyHops(loadConfig({}))).toBe(0);
    expect(trustedProxyHops(loadConfig({ TETHER_TRUST_PROXY: "off" }))).toBe(0);
    expect(trustedProxyHops(loadConfig({ TETHER_TRUST_PROXY: "on" }))).toBe(1);
    for (const bad of ["yes", "-1", "6", "1.5"])
      expect(() => trustedProxyHops(loadConfig({ TETHER_TRUST_PROXY: bad })), bad).toThrow(
        /TETHER_TRUST_PROXY must be/,
      );
  });

  it("an IPv6 address is counted by its /64, so a host cannot rotate through its own prefix", () => {
    expect(addressThrottleKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressThrottleKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(addressThrottleKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressThrottleKey("203.0.113.9")).toBe("203.0.113.9");
  });
});
