import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setActionEnvironment } from "../lib/actions/define-action";
import { API_SCOPES, type ApiScope } from "../lib/api/scopes";
import { findAuditLog } from "../lib/audit/audit-log";
import { can, ROLES, type Role, type Scope, type SessionUser } from "../lib/auth/rbac";
import { getActiveUser } from "../lib/auth/users";
import { createDb, type Db } from "../lib/db";
import { SANDBOX_KEY_HEADER } from "../lib/sandbox/internal-key";
import { signWebhook } from "../lib/webhooks/signature";
import { startRouteServer } from "./support/route-server";
import {
  checkRouteTable,
  concretePath,
  discoverApiRoutes,
  exportedNames,
  findServerActionModules,
  ROUTE_TABLE,
  tableKeyFor,
  type DiscoveredRoute,
  type HttpMethod,
  type RouteAuth,
} from "./support/route-table";
import { providers, uid } from "./support/runtime";
import { createPersonWithToken } from "./support/tokens";

// Security (docs/security.md): the authorization matrix, generated from the route table (tests/support/route-table.ts) and
// the action table below. Every route the app serves × no credential, a token of each scope, a token of
// each role, a disabled person's token, each role's session → only what the table allows; every server
// action × no session, each role, a disabled person → UNAUTHENTICATED / FORBIDDEN exactly where the role
// lacks the scope. A route or action without an entry (or an entry without one) fails the first test.
// Calls that pass authorization carry fake ids and bodies that cannot be valid, so they stop at
// validation or NOT_FOUND and change nothing.

// The console's session (Auth.js cookie → user id) is replaced by `session.userId`; the rest is the real
// getCurrentUser: the user is re-read from the database, so a disabled person has no session.
const session = vi.hoisted(() => ({ userId: null as string | null, db: null as unknown }));
vi.mock("@/lib/auth/session", () => ({
  getCurrentUser: async () => (session.userId ? getActiveUser(session.db as Db, session.userId) : null),
}));

/** What a token of a person with this role may do over the API, whatever scopes the token names (lib/api/scopes.ts). */
const API_SCOPES_OF_ROLE: Record<Role, readonly ApiScope[]> = {
  reviewer: ["runs:read", "packets:decide", "schedules:read"],
  operator: [
    "runs:read",
    "packets:decide",
    "runs:write",
    "signals:write",
    "metrics:read",
    "gates:request",
    "schedules:read",
    "schedules:write",
  ],
  admin: API_SCOPES,
};

/** What each role may do in the console (lib/auth/rbac.ts). */
const CONSOLE_SCOPES_OF_ROLE: Record<Role, readonly Scope[]> = {
  reviewer: ["runs:read", "packets:read", "packets:decide"],
  operator: ["runs:read", "packets:read", "packets:decide", "runs:operate"],
  admin: ["runs:read", "packets:read", "packets:decide", "runs:operate", "admin:manage"],
};

/** Every server action ("use server" module exports): the console scope it needs, or "public" (the sign-in form). */
const ACTION_TABLE: Record<string, Scope | "public"> = {
  "app/(auth)/signin/actions.ts#signInWithPasswordAction": "public",
  "app/(auth)/signin/actions.ts#signInWithOidcAction": "public",
  "lib/actions/agents.ts#replayVersionAction": "admin:manage",
  "lib/actions/evals.ts#importDatasetAction": "admin:manage",
  "lib/actions/packets.ts#decidePacketAction": "packets:decide",
  "lib/actions/packets.ts#checkUnknownOutcomeAction": "packets:decide",
  "lib/actions/packets.ts#decidePacketsTogetherAction": "packets:decide",
  "lib/actions/packets.ts#assignPacketAction": "packets:decide",
  "lib/actions/permissions.ts#putPermissionAction": "admin:manage",
  "lib/actions/permissions.ts#removePermissionAction": "admin:manage",
  "lib/actions/runs.ts#cancelRunAction": "runs:operate",
  "lib/actions/runs.ts#resumeRunAction": "runs:operate",
  "lib/actions/runs.ts#upgradeRunAction": "runs:operate",
  "lib/actions/runs.ts#upgradeVersionAction": "runs:operate",
  "lib/actions/runs.ts#retryRunAction": "runs:operate",
  "lib/actions/runs.ts#forkRunAction": "runs:operate",
  "lib/actions/tokens.ts#createApiTokenAction": "admin:manage",
  "lib/actions/tokens.ts#revokeApiTokenAction": "admin:manage",
  "lib/actions/tools.ts#registerToolAction": "admin:manage",
  "lib/actions/tools.ts#disableToolAction": "admin:manage",
  "lib/actions/tools.ts#enableToolAction": "admin:manage",
  "lib/actions/users.ts#createUserAction": "admin:manage",
  "lib/actions/users.ts#changeUserRoleAction": "admin:manage",
  "lib/actions/users.ts#setUserDisabledAction": "admin:manage",
  "lib/actions/workspaces.ts#createWorkspaceAction": "admin:manage",
  "lib/actions/workspaces.ts#putMemberAction": "admin:manage",
  "lib/actions/workspaces.ts#removeMemberAction": "admin:manage",
};

/** Authorized calls this matrix does not make, because no fake id or invalid body stops them before they act. */
// POST /api/sandbox/reset empties and re-seeds the sandbox world; the packets' live stream does not end by itself
// (its refusals are still checked; tests/live-stream.int.test.ts reads it).
const NOT_CALLED_WHEN_ALLOWED = new Set(["POST /api/sandbox/reset", "GET /api/console/packets/stream"]);

const ENV = [
  "DATABASE_URL",
  "TETHER_RATE_LIMIT",
  "TETHER_SANDBOX",
  "TETHER_SANDBOX_SECRET",
  "TETHER_WEBHOOK_SECRETS",
  "TETHER_WEBHOOK_SIGNAL_TYPES",
  "TETHER_EMBEDDED_WORKER",
] as const;
const SANDBOX_KEY = `matrix-${randomBytes(24).toString("hex")}`;
const WEBHOOK_KEY = randomBytes(32);
const INVALID_BODY = JSON.stringify("authorization matrix: not a valid body");

type Credential =
  | { kind: "none" | "unknown-token" | "disabled-token" | "disabled-session" | "sandbox-key" | "wrong-sandbox-key" }
  | { kind: "scope"; scope: ApiScope }
  | { kind: "role-token"; role: Role }
  | { kind: "session"; role: Role };
type Expected = "allow" | 401 | 403 | 405;

const label = (c: Credential) => ("scope" in c ? `${c.kind}:${c.scope}` : "role" in c ? `${c.kind}:${c.role}` : c.kind);

/** What the table says a credential gets from a route with this auth. */
function expectedFor(auth: RouteAuth, c: Credential): Expected | "skip" {
  if (auth === null) return "allow";
  if (Array.isArray(auth)) {
    // Any one of the scopes lets a token through.
    const answers = (auth as readonly ApiScope[]).map((scope) => expectedFor(scope, c));
    return answers.includes("allow") ? "allow" : answers[0];
  }
  if (typeof auth !== "string") return "skip";
  if (auth === "method-not-allowed") return 405;
  if (auth === "authjs") return "skip"; // Auth.js's own endpoints: its sign-in and session rules, not ours
  if (auth === "signature") return 401; // no credential of ours signs a webhook (signed calls: their own test)
  if (auth === "bearer-any") return c.kind === "scope" || c.kind === "role-token" ? "allow" : 401;
  if (auth === "sandbox") {
    if (c.kind === "sandbox-key") return "allow";
    if (c.kind === "scope") return c.scope === "admin" ? "allow" : 403;
    if (c.kind === "role-token" || c.kind === "session") return c.role === "admin" ? "allow" : 403;
    return 401;
  }
  if (auth.startsWith("console:")) {
    const scope = auth.slice("console:".length) as Scope;
    return c.kind === "session" ? (CONSOLE_SCOPES_OF_ROLE[c.role].includes(scope) ? "allow" : 403) : 401;
  }
  const scope = auth as ApiScope;
  if (c.kind === "scope") return c.scope === scope || c.scope === "admin" ? "allow" : 403;
  if (c.kind === "role-token") return API_SCOPES_OF_ROLE[c.role].includes(scope) ? "allow" : 403;
  return 401;
}

describe("the route and action tables", () => {
  it("name every route handler and HTTP method the app serves, and nothing else", () => {
    const routes = discoverApiRoutes();
    expect(routes.length).toBeGreaterThan(40);
    const { unlisted, unused } = checkRouteTable(routes);
    expect(
      unlisted,
      "routes without an entry in ROUTE_TABLE (tests/support/route-table.ts): say who may call them",
    ).toEqual([]);
    expect(unused, "ROUTE_TABLE entries that name no route").toEqual([]);
  });

  it("name every server action, and nothing else", () => {
    const found = findServerActionModules().flatMap((file) =>
      exportedNames(readFileSync(file, "utf8")).map((name) => `${file}#${name}`),
    );
    expect(found.length).toBeGreaterThan(15);
    expect(
      found.filter((key) => !(key in ACTION_TABLE)),
      "server actions without an entry in ACTION_TABLE",
    ).toEqual([]);
    expect(
      Object.keys(ACTION_TABLE).filter((key) => !found.includes(key)),
      "ACTION_TABLE entries that name no action",
    ).toEqual([]);
  });
});

describe.each(providers())("authorization matrix [%s]", (_provider, url) => {
  let db: Db;
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let routes: DiscoveredRoute[];
  const saved: Partial<Record<(typeof ENV)[number], string>> = {};
  const tokens = new Map<string, string>(); // credential label → bearer
  const sessionIds = new Map<string, string>(); // credential label → user id
  const credentials: Credential[] = [
    { kind: "none" },
    { kind: "unknown-token" },
    ...API_SCOPES.map((scope) => ({ kind: "scope" as const, scope })),
    ...ROLES.map((role) => ({ kind: "role-token" as const, role })),
    { kind: "disabled-token" },
    ...ROLES.map((role) => ({ kind: "session" as const, role })),
    { kind: "disabled-session" },
    { kind: "sandbox-key" },
    { kind: "wrong-sandbox-key" },
  ];

  beforeAll(async () => {
    for (const key of ENV) saved[key] = process.env[key];
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    process.env.TETHER_RATE_LIMIT = "off";
    process.env.TETHER_SANDBOX = "1";
    process.env.TETHER_SANDBOX_SECRET = SANDBOX_KEY;
    process.env.TETHER_WEBHOOK_SECRETS = `matrix=whsec_${WEBHOOK_KEY.toString("base64")}`;
    process.env.TETHER_WEBHOOK_SIGNAL_TYPES = "matrix=*";
    // This process serves the routes and runs no embedded worker (like a console beside standalone workers),
    // so /api/health/ready answers 200 rather than "embedded worker not started yet".
    process.env.TETHER_EMBEDDED_WORKER = "0";
    db = createDb(url);
    session.db = db;
    for (const scope of API_SCOPES)
      tokens.set(`scope:${scope}`, (await createPersonWithToken(db, { role: "admin", scopes: [scope] })).token);
    // A token of each role: an admin token whose owner now has that role (the role bounds what it may do).
    for (const role of ROLES) {
      const person = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
      await db.user.update({ where: { email: person.email }, data: { role } });
      tokens.set(`role-token:${role}`, person.token);
    }
    const disabled = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
    await db.user.update({ where: { email: disabled.email }, data: { disabledAt: new Date() } });
    tokens.set("disabled-token", disabled.token);
    tokens.set("unknown-token", `tth_${randomBytes(24).toString("base64url")}`);
    for (const role of ROLES) sessionIds.set(`session:${role}`, (await createUser(db, role)).id);
    sessionIds.set("disabled-session", (await createUser(db, "admin", new Date())).id);
    routes = discoverApiRoutes();
    server = await startRouteServer();
  });
  afterAll(async () => {
    await server?.close();
    session.userId = null;
    for (const key of ENV)
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    await db.$disconnect();
  });

  async function call(
    method: HttpMethod,
    pathname: string,
    c: Credential,
    init: { body?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { "content-type": "application/json", ...init.headers };
    const bearer = tokens.get(label(c));
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (c.kind === "sandbox-key") headers[SANDBOX_KEY_HEADER] = SANDBOX_KEY;
    if (c.kind === "wrong-sandbox-key") headers[SANDBOX_KEY_HEADER] = `wrong-${SANDBOX_KEY}`;
    session.userId = sessionIds.get(label(c)) ?? null;
    if (session.userId) headers.cookie = "authjs.session-token=matrix"; // the sandbox reads a session only when a cookie came
    const res = await fetch(server.url + pathname, {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : (init.body ?? INVALID_BODY),
    });
    const text = await res.text();
    session.userId = null;
    return { status: res.status, text };
  }

  /** Every (route, method) of the table's kind `filter`, with fake ids in its path. */
  function cases(filter: (auth: RouteAuth) => boolean) {
    return routes
      .flatMap((route) =>
        route.methods.map((method) => {
          const key = tableKeyFor(route.template, method)!;
          const pathname = concretePath(route.template, (name) =>
            name === "source" ? "matrix" : `fake-${name}-${uid()}`,
          );
          return { key, method, pathname, auth: ROUTE_TABLE[key], call: `${method} ${route.template}` };
        }),
      )
      .filter((c) => filter(c.auth));
  }

  /** Calls each case with every credential; returns every answer the table does not allow. */
  async function mismatches(list: ReturnType<typeof cases>) {
    const wrong: string[] = [];
    let allowed = 0;
    for (const c of list) {
      for (const credential of credentials) {
        const expected = expectedFor(c.auth, credential);
        if (expected === "skip" || (expected === "allow" && NOT_CALLED_WHEN_ALLOWED.has(c.call))) continue;
        const { status, text } = await call(c.method, c.pathname, credential);
        const ok = expected === "allow" ? status < 500 && status !== 401 && status !== 403 : status === expected;
        if (expected === "allow" && ok) allowed++;
        if (!ok)
          wrong.push(
            `${c.method} ${c.pathname} as ${label(credential)}: expected ${expected}, got ${status} ${text.slice(0, 200)}`,
          );
        else if (expected !== "allow" && !/"error"/.test(text))
          wrong.push(
            `${c.method} ${c.pathname} as ${label(credential)}: ${status} without a JSON error body: ${text.slice(0, 200)}`,
          );
      }
    }
    return { wrong, allowed };
  }

  it("API routes: bearer tokens by scope and by their owner's role; no token, an unknown one, a disabled person's or a session → 401", async () => {
    const list = cases(
      (auth) => Array.isArray(auth) || (typeof auth === "string" && (API_SCOPES as readonly string[]).includes(auth)),
    );
    expect(list.length).toBeGreaterThanOrEqual(24);
    const { wrong, allowed } = await mismatches(list);
    expect(wrong).toEqual([]);
    expect(allowed).toBeGreaterThan(list.length); // every route let someone through
  }, 120_000); // ~30 routes × every credential, one request at a time: past 25 s on a loaded machine

  it("console routes: the role's session only (a token is not a session; a disabled person has none)", async () => {
    const list = cases((auth) => typeof auth === "string" && auth.startsWith("console:"));
    expect(list.length).toBeGreaterThanOrEqual(11);
    const { wrong, allowed } = await mismatches(list);
    expect(wrong).toEqual([]);
    // every role whose console scopes hold the route's let through (reads: all three roles; admin pages: the admin)
    const rolesLetThrough = list
      .filter((c) => !NOT_CALLED_WHEN_ALLOWED.has(c.call))
      .reduce(
        (sum, c) =>
          sum + ROLES.filter((role) => can(role, (c.auth as string).slice("console:".length) as Scope)).length,
        0,
      );
    expect(allowed).toBeGreaterThanOrEqual(rolesLetThrough);
  });

  it("sandbox routes: an admin's token or session, or the internal key; anyone else 401/403", async () => {
    const list = cases((auth) => auth === "sandbox");
    expect(list.length).toBeGreaterThanOrEqual(20);
    const { wrong, allowed } = await mismatches(list);
    expect(wrong).toEqual([]);
    expect(allowed).toBeGreaterThanOrEqual((list.length - NOT_CALLED_WHEN_ALLOWED.size) * 4);
  });

  it("MCP: any active person's token; GET and DELETE are 405 to everyone; health is public", async () => {
    const list = cases((auth) => auth === "bearer-any" || auth === "method-not-allowed" || auth === null);
    const { wrong } = await mismatches(list);
    expect(wrong).toEqual([]);
    expect((await call("GET", "/api/health", { kind: "none" })).status).toBe(200);
  });

  it("webhooks: only a signature by the source's secret gets past 401 — no token, session or key does", async () => {
    const { wrong } = await mismatches(cases((auth) => auth === "signature"));
    expect(wrong).toEqual([]);
    const body = JSON.stringify({ runId: `run_${uid()}`, type: "matrix.test" });
    const id = `msg_${uid()}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const signed = (signature: string) => ({
      body,
      headers: { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature },
    });
    // Signed by the source's secret: past authorization, the run does not exist.
    expect(
      (
        await call(
          "POST",
          "/api/webhooks/matrix",
          { kind: "none" },
          signed(signWebhook(WEBHOOK_KEY, id, timestamp, body)),
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await call(
          "POST",
          "/api/webhooks/matrix",
          { kind: "scope", scope: "admin" },
          signed(signWebhook(randomBytes(32), id, timestamp, body)),
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await call(
          "POST",
          `/api/webhooks/nosuch-${uid()}`,
          { kind: "none" },
          signed(signWebhook(WEBHOOK_KEY, id, timestamp, body)),
        )
      ).status,
    ).toBe(404);
  });

  describe("server actions", () => {
    const actions: Array<{
      key: string;
      scope: Scope;
      fn: (input: unknown) => Promise<{ ok: boolean; code?: string }>;
    }> = [];
    let current: SessionUser | null = null;

    beforeAll(async () => {
      for (const [key, scope] of Object.entries(ACTION_TABLE)) {
        if (scope === "public") continue; // the sign-in form: Auth.js's signIn, which needs a Next request
        const [file, name] = key.split("#");
        const mod = (await import(path.join(process.cwd(), file))) as Record<
          string,
          (input: unknown) => Promise<{ ok: boolean; code?: string }>
        >;
        actions.push({ key, scope, fn: mod[name] });
      }
      // The real session's rule: the user is re-read, and a disabled one is no one.
      setActionEnvironment({
        getUser: async () => (current ? getActiveUser(db, current.id) : null),
        getDb: () => db,
        revalidatePath: () => {},
      });
    });
    afterAll(() => setActionEnvironment(null));

    it("no session or a disabled person → UNAUTHENTICATED; each role → FORBIDDEN exactly where it lacks the scope (audited), else on to validation", async () => {
      const people = await Promise.all(ROLES.map(async (role) => ({ role, user: await createUser(db, role) })));
      const disabled = await createUser(db, "admin", new Date());
      const wrong: string[] = [];
      const expectCode = async (
        key: string,
        fn: (input: unknown) => Promise<{ ok: boolean; code?: string }>,
        who: string,
        expected: string,
      ) => {
        // null is not valid input for any action: one that gets past authorization stops at INVALID_INPUT
        const result = await fn(null);
        if (result.ok || result.code !== expected)
          wrong.push(`${key} as ${who}: expected ${expected}, got ${JSON.stringify(result)}`);
      };
      for (const { key, scope, fn } of actions) {
        current = null;
        await expectCode(key, fn, "no session", "UNAUTHENTICATED");
        current = disabled;
        await expectCode(key, fn, "a disabled admin", "UNAUTHENTICATED");
        for (const { role, user } of people) {
          current = user;
          const isAllowed = CONSOLE_SCOPES_OF_ROLE[role].includes(scope);
          const before = (await findAuditLog(db, { actor: user.email, limit: 500 })).length;
          await expectCode(key, fn, role, isAllowed ? "INVALID_INPUT" : "FORBIDDEN");
          const after = await findAuditLog(db, { actor: user.email, limit: 500 });
          if (!isAllowed && (after.length !== before + 1 || !after.some((row) => row.action.endsWith(".denied"))))
            wrong.push(`${key} as ${role}: the refusal was not audited`);
          if (isAllowed && after.length !== before) wrong.push(`${key} as ${role}: an invalid call wrote an audit row`);
        }
      }
      current = null;
      expect(wrong).toEqual([]);
      expect(actions.length).toBe(Object.values(ACTION_TABLE).filter((s) => s !== "public").length);
    });
  });
});

async function createUser(db: Db, role: Role, disabledAt: Date | null = null): Promise<SessionUser> {
  const user: SessionUser = {
    id: `usr_${randomBytes(12).toString("hex")}`,
    email: `${uid(role)}@matrix.example`,
    name: null,
    role,
  };
  await db.user.create({ data: { id: user.id, email: user.email, role, disabledAt } });
  return user;
}
