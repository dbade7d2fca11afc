import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { NextRequest, type NextFetchEvent } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { agents as teamAgents } from "../agents";
import { DEFAULT_MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../lib/api/body";
import { getActiveUser } from "../lib/auth/users";
import { createDb, type Db } from "../lib/db";
import { getRuntime } from "../lib/runtime.server";
import { signWebhook } from "../lib/webhooks/signature";
import { proxy } from "../proxy";
import { startRouteServer } from "./support/route-server";
import {
  concretePath,
  discoverApiRoutes,
  ROUTE_TABLE,
  tableKeyFor,
  type HttpMethod,
  type RouteAuth,
} from "./support/route-table";
import { providers, uid } from "./support/runtime";
import { createPersonWithToken } from "./support/tokens";
import { until } from "./support/until";

// Security (docs/security.md): every route the app serves (the route table's), fuzzed over real HTTP with fast-check —
// random JSON, raw bytes, invalid UTF-8, deep nesting, huge strings, wrong content types, hostile path
// segments and query strings, bodies over the limit — as an admin and as no one: never a 5xx, every
// refusal a JSON error, and nothing in the database changes unless a request was accepted (a batch of
// bodies that cannot be valid is accepted nowhere and changes nothing).
// Paths holding a "%" go through the proxy first, as under Next (proxy.ts answers a malformed one).
// Reproduce a failure with FUZZ_SEED=<seed printed> npx vitest run tests/fuzz-routes.int.test.ts.

// Auth.js's ESM build does not load under Vitest; the proxy answers /api/* paths without asking it.
vi.mock("next-auth", () => ({
  default: () => ({
    auth: () => {
      throw new Error("no session check expected");
    },
  }),
}));
// The console's session: `session.userId`, re-read from the database as the real getCurrentUser does.
const session = vi.hoisted(() => ({ userId: null as string | null, db: null as unknown }));
vi.mock("@/lib/auth/session", () => ({
  getCurrentUser: async () => (session.userId ? getActiveUser(session.db as Db, session.userId) : null),
}));

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_909);
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const ENV = [
  "DATABASE_URL",
  "TETHER_RATE_LIMIT",
  "TETHER_SANDBOX",
  "TETHER_SANDBOX_SECRET",
  "TETHER_WEBHOOK_SECRETS",
  "TETHER_WEBHOOK_SIGNAL_TYPES",
  "TETHER_MAX_BODY_BYTES",
  "TETHER_EMBEDDED_WORKER",
] as const;
const WEBHOOK_KEY = randomBytes(32);

/** Not fuzzed with a credential: requests no body or id can stop (one empties the sandbox world; the packets' live stream never ends by itself). */
const NOT_FUZZED_AS_ADMIN = new Set(["POST /api/sandbox/reset", "GET /api/console/packets/stream"]);
// Reads that are audited: an admin's export of the audit log writes its own audit row (lib/commands/record-audit-export.ts).
const AUDITED_READS = new Set(["GET /api/audit", "GET /api/console/audit"]);

/** A JSON-RPC error answer (A2A's JSON-RPC binding answers errors with HTTP 200): a refusal, not an accepted call. */
function isJsonRpcError(text: string): boolean {
  try {
    const json = JSON.parse(text) as unknown;
    return !!json && typeof json === "object" && (json as { jsonrpc?: unknown }).jsonrpc === "2.0" && "error" in json;
  } catch {
    return false;
  }
}
/** Not fuzzed at all: Auth.js's endpoints do not load under Vitest (their body limit: limits.int.test.ts). */
const isAuthJs = (auth: RouteAuth) => auth === "authjs";

/** The tables "never a change" watches: every model's row count. */
const TABLES = [
  "run",
  "checkpoint",
  "stateEntry",
  "traceEvent",
  "effectIntent",
  "decisionPacket",
  "packetApproval",
  "signal",
  "permission",
  "decisionQueue",
  "permissionChange",
  "apiToken",
  "toolRegistration",
  "sandboxOrder",
  "sandboxPayment",
  "sandboxMail",
  "sandboxDeploy",
  "sandboxDoc",
  "sandboxTicket",
  "sandboxDraft",
  "sandboxLedgerEntry",
  "sandboxFault",
  "user",
  "auditLog",
  "agentVersion",
  "evalDataset",
  "evalCase",
  "evalRun",
  "evalResult",
  "notificationChannel",
  "notificationDelivery",
] as const;

type Target = { key: string; method: HttpMethod; template: string; auth: RouteAuth; call: string };
type As = "admin" | "anonymous";
type Req = {
  method: HttpMethod;
  path: string;
  body?: string | Uint8Array;
  contentType?: string | null;
  headers?: Record<string, string>;
  chunked?: boolean;
};
type Answer = { status: number; contentType: string | null; text: string; viaProxy: boolean };

// ---- arbitraries -------------------------------------------------------------------------------

const hostileKeys = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "",
  "agent",
  "input",
  "decision",
  "id",
  "runId",
  "type",
  "scopes",
  "name",
);
const hostileValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    -0,
    0.1,
    "",
    " ",
    "\u0000",
    "\uFEFF",
    "\uD800",
    "𝕏".repeat(50),
    "' OR 1=1 --",
    "<script>",
    "../../etc/passwd",
    "%00",
    "null",
  ),
);
/** JSON values, with the keys our schemas use and prototype-pollution keys mixed in. */
const jsonBody = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 3, arbitrary: fc.dictionary(hostileKeys, hostileValue, { maxKeys: 6 }).map((o) => JSON.stringify(o)) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: MAX_JSON_DEPTH - 2, max: 5_000 }).map((n) => "[".repeat(n) + "]".repeat(n)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: MAX_JSON_DEPTH - 2, max: 2_000 }).map((n) => '{"a":'.repeat(n) + "1" + "}".repeat(n)),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 10_000, max: 300_000 })
      .map((n) => JSON.stringify({ agent: "x".repeat(n), input: "y".repeat(n >> 2) })),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
);
/** Bodies that are not JSON text at all: random bytes (invalid UTF-8 included), a BOM, truncated JSON. */
const rawBody = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.constantFrom(
    new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]),
    new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
    new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xc3, 0x28, 0x7d]),
    new Uint8Array([0xed, 0xa0, 0x80]),
    new Uint8Array([0x00, 0x00, 0x00]),
  ),
  fc.constantFrom(
    '{"agent":',
    "[1,2",
    "{'a':1}",
    '{"a":1}{"b":2}',
    "NaN",
    "Infinity",
    "undefined",
    '"\\ud800"',
    '{"a":"\\u0000"}',
    "1e999999",
  ),
);
const contentType = fc.constantFrom<string | null>(
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=----x",
  "application/octet-stream",
  "application/xml",
  "*/*",
  null,
);
/** A path segment as sent: random text encoded, or hand-made encodings (malformed ones included). */
const segment = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).map(encodeURIComponent) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "%00",
      "%0A",
      "%2F",
      "%252F",
      "%2e",
      "%E0%A4%A",
      "%ZZ",
      "%",
      "%%",
      "%C0%AF",
      "%ED%A0%80",
      "%FF%FE",
      "%F0%9F%98",
      "a%",
      "%u0041",
      "%2525E0",
      "%25",
      "run_1%3Bdrop",
      "%3Cscript%3E",
      "~",
      "'",
      "%22",
      "a".repeat(300),
      "b".repeat(5_000),
      "null",
      "undefined",
      "0",
      "-1",
    ),
  },
);
const query = fc.oneof(
  fc
    .dictionary(
      fc.oneof(
        fc.string({ maxLength: 10 }),
        fc.constantFrom(
          "limit",
          "after",
          "status",
          "cursor",
          "since",
          "agent",
          "runId",
          "queue",
          "includeDisabled",
          "migration",
        ),
      ),
      fc.string({ unit: "binary", maxLength: 30 }),
      { maxKeys: 4 },
    )
    .map((d) => new URLSearchParams(d).toString()),
  fc.constantFrom(
    "limit=1e999",
    "limit=-1",
    "limit=NaN",
    "after=0x10",
    "status=__proto__",
    "cursor=%FF",
    "since=-99999999999999999999",
    "limit=1&limit=2",
    "a=%",
    "%=%",
    "&&&",
    "from=2020-13-45",
    "to=9999-99-99",
    "includeDisabled=maybe",
  ),
);

/** Waits until what building the runtime writes in the background is in the database (lib/runtime.server.ts). */
async function untilStartupWritesLand(db: Db) {
  const versions = getRuntime()
    .context.agents.all()
    .map(({ slug, version }) => ({ slug, version }));
  await until(() => db.agentVersion.findMany({ where: { OR: versions }, select: { slug: true, version: true } }), {
    what: `the versions of the runtime's ${versions.length} agents are recorded`,
    holds: (rows) => rows.length === versions.length,
  });
  const defaults = teamAgents.flatMap((agent) =>
    agent.defaultPermissions.map((rule) => ({ agent: rule.agent, tool: rule.tool, step: rule.step ?? "*" })),
  );
  await until(
    () =>
      db.permission.findMany({
        where: { agent: { in: teamAgents.map((a) => a.definition.slug) } },
        select: { agent: true, tool: true, step: true },
      }),
    {
      what: `the team agents' ${defaults.length} default permissions are written`,
      holds: (rows) =>
        defaults.every((d) => rows.some((r) => r.agent === d.agent && r.tool === d.tool && r.step === d.step)),
    },
  );
}

// ---- the suite ---------------------------------------------------------------------------------

describe.each(providers())("fuzzing every route [%s]", (provider, url) => {
  let db: Db;
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let adminToken = "";
  let adminId = "";
  let targets: Target[] = [];
  const saved: Partial<Record<(typeof ENV)[number], string>> = {};
  /** Requests accepted (2xx) with a method that may change state: reported, and excused from "no change". */
  const accepted: string[] = [];

  beforeAll(async () => {
    for (const key of ENV) saved[key] = process.env[key];
    process.env.DATABASE_URL = url;
    process.env.TETHER_RATE_LIMIT = "off";
    process.env.TETHER_SANDBOX = "1";
    process.env.TETHER_SANDBOX_SECRET = `fuzz-${randomBytes(24).toString("hex")}`;
    process.env.TETHER_WEBHOOK_SECRETS = `fuzz=whsec_${WEBHOOK_KEY.toString("base64")}`;
    process.env.TETHER_WEBHOOK_SIGNAL_TYPES = "fuzz=*";
    // The route server runs no embedded worker: with it off, /api/health/ready answers 200 like a console that may take traffic.
    process.env.TETHER_EMBEDDED_WORKER = "0";
    delete process.env.TETHER_MAX_BODY_BYTES;
    db = createDb(url);
    session.db = db;
    const admin = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
    adminToken = admin.token;
    adminId = (await db.user.findUniqueOrThrow({ where: { email: admin.email }, select: { id: true } })).id;
    targets = discoverApiRoutes()
      .flatMap((route) =>
        route.methods.map((method) => {
          const key = tableKeyFor(route.template, method)!;
          return { key, method, template: route.template, auth: ROUTE_TABLE[key], call: `${method} ${route.template}` };
        }),
      )
      .filter((t) => !isAuthJs(t.auth));
    server = await startRouteServer();
    // A route that first builds the runtime records its agents' versions and the team agents' default
    // permissions, without awaiting either: both are written before any snapshot of the row counts.
    expect(
      (await fetch(`${server.url}/api/agents`, { headers: { authorization: `Bearer ${adminToken}` } })).status,
    ).toBe(200);
    await untilStartupWritesLand(db);
  });
  afterAll(async () => {
    await server?.close();
    session.userId = null;
    for (const key of ENV)
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    if (accepted.length)
      console.info(`[fuzz] accepted requests that may change state (${accepted.length}):\n  ${accepted.join("\n  ")}`);
    await db.$disconnect();
  });

  const fakePath = (t: Target) =>
    concretePath(t.template, (name) => (name === "source" ? "fuzz" : `fuzz-${name}-${uid()}`));
  const describeReq = (r: Req, as: As) =>
    `${r.method} ${r.path.length > 300 ? `${r.path.slice(0, 300)}…(${r.path.length} chars)` : r.path} as ${as}` +
    (r.contentType !== undefined ? ` content-type=${JSON.stringify(r.contentType)}` : "") +
    (r.chunked ? " (chunked)" : "") +
    (r.body === undefined
      ? ""
      : ` body(${r.body.length}${typeof r.body === "string" ? " chars" : " bytes"})=${JSON.stringify(typeof r.body === "string" ? r.body.slice(0, 300) : Buffer.from(r.body.slice(0, 100)).toString("hex"))}`);

  /** Sends one request as Next would serve it: through the proxy when the path holds a "%", then the route. */
  async function send(t: Target, r: Req, as: As): Promise<Answer> {
    const headers: Record<string, string> = { accept: "application/json, text/event-stream", ...r.headers };
    if (r.contentType !== null) headers["content-type"] = r.contentType ?? "application/json";
    const hasBody = r.method !== "GET" && r.method !== "HEAD" && r.body !== undefined;
    const bytes = hasBody ? (typeof r.body === "string" ? new TextEncoder().encode(r.body) : r.body!) : undefined;
    if (as === "admin") {
      if (typeof t.auth === "string" && t.auth.startsWith("console:")) {
        session.userId = adminId;
        headers.cookie = "authjs.session-token=fuzz";
      } else if (t.auth === "signature") {
        const id = `msg_${uid()}`;
        const ts = Math.floor(Date.now() / 1000);
        Object.assign(headers, {
          "webhook-id": id,
          "webhook-timestamp": String(ts),
          "webhook-signature": signWebhook(WEBHOOK_KEY, id, ts, bytes ?? new Uint8Array()),
        });
      } else headers.authorization = `Bearer ${adminToken}`;
    }
    try {
      if (r.path.includes("%")) {
        const answer = await proxy(
          new NextRequest(`http://localhost:3000${r.path}`, { method: r.method, headers }),
          {} as NextFetchEvent,
        );
        if (!answer.headers.get("x-middleware-next"))
          return {
            status: answer.status,
            contentType: answer.headers.get("content-type"),
            text: await answer.text(),
            viaProxy: true,
          };
      }
      const body = !bytes
        ? undefined
        : r.chunked
          ? new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
          : (bytes as Uint8Array<ArrayBuffer>);
      const res = await fetch(server.url + r.path, {
        method: r.method,
        headers,
        body,
        signal: AbortSignal.timeout(15_000),
        ...(r.chunked ? { duplex: "half" } : {}),
      } as RequestInit);
      return {
        status: res.status,
        contentType: res.headers.get("content-type"),
        text: await res.text(),
        viaProxy: false,
      };
    } finally {
      session.userId = null;
    }
  }

  /** The properties of every answer: no 5xx; a refusal is a JSON error; an accepted change is noted. */
  function check(t: Target, r: Req, as: As, a: Answer): void {
    const what = `${describeReq(r, as)} → ${a.status}${a.viaProxy ? " (proxy)" : ""} ${a.text.slice(0, 300)}`;
    if (a.status >= 500) throw new Error(`5xx: ${what}`);
    if (a.status >= 400) {
      let json: unknown;
      try {
        json = JSON.parse(a.text);
      } catch {
        throw new Error(`a refusal without a JSON body: ${what}`);
      }
      if (!json || typeof json !== "object" || !("error" in json))
        throw new Error(`a refusal without an error: ${what}`);
    } else if (r.method !== "GET" && r.method !== "HEAD" && r.method !== "OPTIONS" && !isJsonRpcError(a.text))
      accepted.push(`${t.call}: ${describeReq(r, as)} → ${a.status}`);
  }

  async function counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of TABLES) {
      const delegate = (db as unknown as Record<string, { count?: () => Promise<number> } | undefined>)[table];
      if (delegate?.count) out[table] = await delegate.count();
    }
    return out;
  }

  /** fast-check over one route, with its seed in the failure; state must not change unless something was accepted. */
  async function fuzz<T>(
    t: Target,
    index: number,
    arb: fc.Arbitrary<T>,
    toReq: (value: T) => { req: Req; as: As },
    numRuns = NUM_RUNS,
  ) {
    const seed = SEED + index;
    const before = await counts();
    const acceptedBefore = accepted.length;
    try {
      await fc.assert(
        fc.asyncProperty(arb, async (value) => {
          const { req, as } = toReq(value);
          check(t, req, as, await send(t, req, as));
        }),
        { seed, numRuns, endOnFailure: true },
      );
    } catch (error) {
      if (error instanceof Error && error.name === "TimeoutError") throw error;
      throw new Error(
        `${t.call} (FUZZ_SEED=${SEED}, this route's seed ${seed}): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const unaudited = ({ auditLog, ...rest }: Record<string, number>) =>
      AUDITED_READS.has(t.call) ? rest : { auditLog, ...rest };
    if (accepted.length === acceptedBefore)
      expect(
        unaudited(await counts()),
        `${t.call}: the database changed although every request was refused or read-only`,
      ).toEqual(unaudited(before));
  }

  const asOf = (t: Target) =>
    fc.constantFrom<As>(
      ...(NOT_FUZZED_AS_ADMIN.has(t.call) ? ["anonymous" as const] : ["admin" as const, "anonymous" as const]),
    );
  // OPTIONS (the LangGraph routes' CORS preflights) reads no body, like GET.
  const withBody = (t: Target) => t.method !== "GET" && t.method !== "HEAD" && t.method !== "OPTIONS";

  it("a NUL character in a path segment, a query value or a body string is a 400, on both databases (Postgres cannot store it)", async () => {
    const run = targets.find((t) => t.call === "GET /api/runs/[id]")!;
    const packet = targets.find((t) => t.call === "GET /api/console/packets/[id]")!;
    const tokens = targets.find((t) => t.call === "POST /api/tokens")!;
    const history = targets.find((t) => t.call === "GET /api/console/packets/history.csv")!;
    for (const [t, req] of [
      [run, { method: "GET", path: "/api/runs/a%00b" }],
      [run, { method: "GET", path: "/api/runs?agent=a%00b" }],
      [packet, { method: "GET", path: "/api/console/packets/a%00b" }],
      [history, { method: "GET", path: "/api/console/packets/history.csv?tool=a%00b" }],
      [
        tokens,
        { method: "POST", path: "/api/tokens", body: JSON.stringify({ name: "a\u0000b", scopes: ["runs:read"] }) },
      ],
    ] as Array<[Target, Req]>) {
      const res = await send(t, req, "admin");
      expect(res.status, `${req.method} ${req.path}`).toBe(400);
    }
  });

  it("random and hostile JSON bodies and content types: never a 5xx, every refusal a JSON error", async () => {
    const list = targets.filter(withBody);
    expect(list.length).toBeGreaterThan(25);
    for (const [i, t] of list.entries()) {
      await fuzz(t, i, fc.tuple(fc.oneof(jsonBody, rawBody), contentType, asOf(t)), ([body, type, as]) => ({
        req: { method: t.method, path: fakePath(t), body, contentType: type },
        as,
      }));
    }
  }, 120_000);

  it("hostile path segments (malformed percent-encoding included) and query strings: never a 5xx", async () => {
    for (const [i, t] of targets.entries()) {
      const dynamic = /\[/.test(t.template);
      const pathArb = dynamic ? fc.array(segment, { minLength: 1, maxLength: 3 }) : fc.constant([] as string[]);
      await fuzz(
        t,
        1000 + i,
        fc.tuple(pathArb, fc.option(query), asOf(t)),
        ([segments, q, as]) => {
          let n = 0;
          const path =
            t.template.replace(/\[(?:\.\.\.)?[^\]]+\]/g, () => segments[n++ % segments.length]) + (q ? `?${q}` : "");
          // A body that cannot be valid: a call that reaches a handler stops at validation or NOT_FOUND.
          return { req: { method: t.method, path, body: withBody(t) ? "[]" : undefined }, as };
        },
        dynamic ? NUM_RUNS : Math.ceil(NUM_RUNS / 3),
      );
    }
  }, 120_000);

  it("bodies over the size limit: 413 (by Content-Length or while streaming) wherever a body is read, never a 5xx", async () => {
    const big = new Uint8Array(DEFAULT_MAX_BODY_BYTES + 1).fill(0x20);
    big[0] = 0x5b; // "[" then spaces: JSON-looking, so only its size is wrong
    const sizes: Record<string, number[]> = {};
    for (const t of targets.filter(withBody)) {
      for (const chunked of [false, true]) {
        for (const as of NOT_FUZZED_AS_ADMIN.has(t.call)
          ? (["anonymous"] as const)
          : (["admin", "anonymous"] as const)) {
          const req: Req = { method: t.method, path: fakePath(t), body: big, chunked };
          const answer = await send(t, req, as);
          check(t, req, as, answer);
          (sizes[t.call] ??= []).push(answer.status);
        }
      }
    }
    // Every route that reads a body as the admin refuses it as too large (routes that ignore bodies answer otherwise).
    const refusedAsTooLarge = Object.entries(sizes)
      .filter(([, statuses]) => statuses.includes(413))
      .map(([call]) => call);
    expect(refusedAsTooLarge).toEqual(
      expect.arrayContaining([
        "POST /api/runs",
        "POST /api/tokens",
        "POST /api/tools",
        "POST /api/mcp",
        "POST /api/webhooks/[source]",
        "POST /api/sandbox/orders",
        "PUT /api/queues/[name]",
      ]),
    );
  }, 120_000);

  it("a batch of bodies that cannot be valid (wrong types) is refused by every route that takes one, and changes nothing", async () => {
    const before = await counts();
    const wrongTypes = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.string().map((s) => s),
      fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null)), { maxLength: 5 }),
    );
    const refusedEverywhere: string[] = [];
    for (const [i, t] of targets.filter(withBody).entries()) {
      if (NOT_FUZZED_AS_ADMIN.has(t.call)) continue;
      await fc.assert(
        fc.asyncProperty(wrongTypes, async (value) => {
          const req: Req = { method: t.method, path: fakePath(t), body: JSON.stringify(value) };
          const answer = await send(t, req, "admin");
          check(t, req, "admin", answer);
          if (answer.status < 400 && !isJsonRpcError(answer.text))
            refusedEverywhere.push(`${describeReq(req, "admin")} → ${answer.status} ${answer.text.slice(0, 200)}`);
        }),
        { seed: SEED + 2000 + i, numRuns: 10 },
      );
    }
    expect(refusedEverywhere, "accepted although the body cannot be valid").toEqual([]);
    expect(await counts()).toEqual(before);
  }, 120_000);
});

describe("POST /api/mcp with a body that is not a JSON-RPC message", () => {
  it("answers a JSON-RPC Invalid Request (400), for null, a batch holding null and an empty batch", async () => {
    const { POST } = await import("../app/api/mcp/route");
    const db = createDb(providers()[0][1]);
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = providers()[0][1];
    try {
      const { token } = await createPersonWithToken(db, { role: "reviewer", scopes: ["runs:read"] });
      for (const body of ["null", "[null]", "[]", "42"]) {
        const request = new Request("http://localhost/api/mcp", {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body,
        });
        const response = await POST(request);
        expect(response.status, body).toBe(400);
        expect(await response.json(), body).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
      }
    } finally {
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
      await db.$disconnect();
    }
  });
});
