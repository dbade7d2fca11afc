import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { isAppError, latestFact, type AgentDefinition, type ToolCallContext } from "../lib/runtime";
import { disableTool } from "../lib/commands/set-tool-disabled";
import { registerTool } from "../lib/commands/register-tool";
import {
  createMcpClientPool,
  createRegisteredToolResolver,
  findRegisteredTools,
  listMcpTools,
  type McpServerConfig,
  type RegisterToolInput,
} from "../lib/tools/registered";
import { formatCommandLine } from "../lib/tools/registered/mcp-commands";
import { scriptedAgent } from "./support/agents";
import { startMcpHttpServer } from "./support/mcp-http-server";
import { startRouteServer } from "./support/route-server";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { createPersonWithToken } from "./support/tokens";

// Tools an admin registers at run time: HTTP endpoints and MCP server tools, resolved by name by the
// engine at every use, with the effect protocol of docs/design.md (keys, lookups, honest outcomes).

// ---- a small CRM over node:http, with fault knobs

type Hit = { method: string; path: string; headers: IncomingMessage["headers"]; body: unknown };

async function startCrm() {
  const hits: Hit[] = [];
  const credits = new Map<string, { creditId: string; customerId: string; amountCents: number }>(); // by idempotency key
  const messages: Array<{ messageId: string; to: string; operationId: string | null }> = [];
  const effects: string[] = []; // every effect applied to this world
  const faults = { dropNext: 0, holdNextMs: 0, failNext: 0 };

  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? "/", "http://crm");
    hits.push({
      method: req.method ?? "GET",
      path: url.pathname + url.search,
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    });
    const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;

    // After an effect: lose the response (connection dropped) or answer too late.
    const answer = (status: number, payload: unknown) => {
      if (faults.dropNext > 0) {
        faults.dropNext--;
        req.socket.destroy();
        return;
      }
      if (faults.holdNextMs > 0) {
        const ms = faults.holdNextMs;
        faults.holdNextMs = 0;
        setTimeout(() => {
          if (!res.destroyed) json(res, status, payload);
        }, ms);
        return;
      }
      json(res, status, payload);
    };
    let m: RegExpExecArray | null;
    if (req.method === "GET" && (m = /^\/customers\/([^/]+)$/.exec(url.pathname))) {
      const id = decodeURIComponent(m[1]);
      return id === "missing"
        ? json(res, 404, { error: { code: "NOT_FOUND", message: "no such customer" } })
        : json(res, 200, { id, name: `Customer ${id}`, verbose: url.searchParams.get("verbose") });
    }
    if (req.method === "POST" && (m = /^\/customers\/([^/]+)\/credits$/.exec(url.pathname))) {
      const key = req.headers["idempotency-key"] as string | undefined;
      if (!key) return json(res, 400, { error: { code: "KEY_REQUIRED", message: "Idempotency-Key header required" } });
      let credit = credits.get(key);
      if (!credit) {
        credit = {
          creditId: `cr_${credits.size + 1}`,
          customerId: decodeURIComponent(m[1]),
          amountCents: Number(body.amountCents),
        };
        credits.set(key, credit);
        effects.push(`credit:${key}`);
      }
      return answer(200, credit);
    }
    if (req.method === "POST" && url.pathname === "/messages") {
      if (faults.failNext > 0) {
        faults.failNext--;
        return json(res, 503, { error: "busy" });
      }
      const message = {
        messageId: `msg_${messages.length + 1}`,
        to: String(body.to),
        operationId: (req.headers["x-tether-operation-id"] as string) ?? null,
      };
      messages.push(message);
      effects.push(`message:${message.operationId}`);
      return answer(201, message);
    }
    if (req.method === "GET" && url.pathname === "/messages") {
      const found = messages.find((msg) => msg.operationId === url.searchParams.get("operationId"));
      return found
        ? json(res, 200, found)
        : json(res, 404, { error: { code: "NOT_FOUND", message: "no such message" } });
    }
    json(res, 404, { error: "no route" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    effects,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- registrations

const stdioServer = (ledger: string): Extract<McpServerConfig, { transport: "stdio" }> => ({
  transport: "stdio",
  command: process.execPath,
  args: ["--import", "tsx", path.resolve("tests/support/mcp-server.ts")],
  env: { MCP_NOTES_LEDGER: ledger },
});

const creditTool = (crmUrl: string, name: string): RegisterToolInput => ({
  kind: "http",
  name,
  description: "Credit a customer's account.",
  capability: "execute",
  semantics: "idempotent",
  inputSchema: {
    type: "object",
    properties: { customerId: { type: "string", minLength: 1 }, amountCents: { type: "integer", minimum: 1 } },
    required: ["customerId", "amountCents"],
    additionalProperties: false,
  },
  config: { url: `${crmUrl}/customers/{{customerId}}/credits`, method: "POST", idempotencyHeader: "Idempotency-Key" },
  impactTemplate: "credits {{amountCents}} cents to customer {{customerId}}",
});

const messageTool = (crmUrl: string, name: string): RegisterToolInput => ({
  kind: "http",
  name,
  description: "Send a message to a customer.",
  capability: "execute",
  semantics: "reconcilable",
  inputSchema: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
  config: {
    url: `${crmUrl}/messages`,
    method: "POST",
    lookupUrl: `${crmUrl}/messages?operationId={{operationId}}`,
    timeoutMs: 300,
  },
});

const customerTool = (crmUrl: string, name: string): RegisterToolInput => ({
  kind: "http",
  name,
  description: "Read a customer.",
  capability: "read",
  semantics: "pure-read",
  inputSchema: {
    type: "object",
    properties: { customerId: { type: "string" }, verbose: { type: "boolean" } },
    required: ["customerId"],
  },
  config: { url: `${crmUrl}/customers/{{customerId}}`, method: "GET" },
});

const ctx = (over: Partial<ToolCallContext> = {}): ToolCallContext => ({
  runId: "run_t",
  step: 0,
  operationId: uid("op"),
  idempotencyKey: uid("key"),
  attempt: 1,
  ...over,
});

async function expectAppError(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isAppError(error), `expected AppError ${code}, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe(code);
  return error as { code: string; fieldErrors?: Record<string, string[]> };
}

describe.each(providers())("registered tools [%s]", (_provider, url) => {
  let crm: Awaited<ReturnType<typeof startCrm>>;
  let mcpHttp: Awaited<ReturnType<typeof startMcpHttpServer>>;
  let t: ReturnType<typeof createTestRuntime>;
  const pool = createMcpClientPool();
  const dir = mkdtempSync(path.join(tmpdir(), "tether-mcp-"));
  const ledger = path.join(dir, "notes.jsonl");
  const ledgerLines = () => {
    try {
      return readFileSync(ledger, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  };
  let resolve: ReturnType<typeof createRegisteredToolResolver>;
  let resolverDb: Db;
  const savedEnv = { hosts: process.env.TETHER_TOOL_ALLOWED_HOSTS, commands: process.env.TETHER_MCP_COMMANDS };

  beforeAll(async () => {
    crm = await startCrm();
    mcpHttp = await startMcpHttpServer();
    // The egress policy refuses loopback: these tests allow exactly the local servers they start (and
    // port 9, which nothing answers), and the stdio MCP server they spawn (and a command that is missing).
    process.env.TETHER_TOOL_ALLOWED_HOSTS = [new URL(crm.url).host, new URL(mcpHttp.url).host, "127.0.0.1:9"].join(",");
    const notes = stdioServer(ledger);
    process.env.TETHER_MCP_COMMANDS = [
      formatCommandLine([notes.command, ...notes.args]),
      "/nonexistent/mcp-server",
    ].join(",");
    // The engine resolves registered tools through their own client, as the composition root does.
    resolverDb = createDb(url);
    resolve = createRegisteredToolResolver(resolverDb, { mcp: pool });
    t = createTestRuntime(url, { tools: [], resolveTool: resolve });
  });
  afterAll(async () => {
    await pool.close();
    await crm.close();
    await mcpHttp.close();
    await t.close();
    await resolverDb.$disconnect();
    rmSync(dir, { recursive: true, force: true });
    for (const [key, value] of [
      ["TETHER_TOOL_ALLOWED_HOSTS", savedEnv.hosts],
      ["TETHER_MCP_COMMANDS", savedEnv.commands],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  function register<T extends AgentDefinition>(agent: T): T {
    t.runtime.context.agents.set(agent.slug, agent);
    return agent;
  }
  const drain = () => t.runtime.createWorker().drain();
  async function runToEnd(agent: AgentDefinition) {
    await grant(t.runtime, agent);
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    return {
      run: await t.runtime.getRun(run.id),
      events: await t.store.listEvents(run.id),
      intents: await t.store.listIntents(run.id),
    };
  }

  describe("HTTP tools", () => {
    it("an idempotent tool sends the key in its header; a retry after a lost response applies nothing twice", async () => {
      const name = `http.${uid("credit").replace("-", "_")}`;
      await registerTool({ db: t.db }, creditTool(crm.url, name), { by: "admin@test" });
      const agent = register(
        scriptedAgent(
          uid("crm"),
          [name],
          [
            {
              kind: "call",
              tool: name,
              args: { customerId: "c 1", amountCents: 500 },
              resultKey: "credit",
              evidence: [],
            },
          ],
        ),
      );
      crm.faults.dropNext = 1;

      const { run, intents } = await runToEnd(agent);

      expect(run.status).toBe("COMPLETED");
      const posts = crm.hits.filter((h) => h.method === "POST" && h.path === "/customers/c%201/credits");
      expect(posts).toHaveLength(2); // the first response was lost
      expect(posts.map((h) => h.headers["idempotency-key"])).toEqual([intents[0].id, intents[0].id]);
      expect(posts[0].headers["x-tether-run-id"]).toBe(run.id);
      expect(posts[0].body).toEqual({ amountCents: 500 }); // the path argument is not repeated in the body
      expect(crm.effects.filter((e) => e === `credit:${intents[0].id}`)).toHaveLength(1);
      expect(intents).toEqual([
        expect.objectContaining({ tool: name, semantics: "idempotent", status: "SUCCEEDED", attempt: 2 }),
      ]);
      expect(latestFact(run.state, "credit")).toMatchObject({
        kind: "receipt",
        value: { customerId: "c 1", amountCents: 500 },
      });
      const tool = await resolve(name);
      expect(tool?.impact({ customerId: "c 1", amountCents: 500 })).toBe("credits 500 cents to customer c 1");
    });

    it("a reconcilable tool looks up a previous attempt after a timeout instead of sending again", async () => {
      const name = `http.${uid("message").replace("-", "_")}`;
      await registerTool({ db: t.db }, messageTool(crm.url, name), { by: "admin@test" });
      const agent = register(
        scriptedAgent(
          uid("crm"),
          [name],
          [{ kind: "call", tool: name, args: { to: "ada@example.com" }, resultKey: "message", evidence: [] }],
        ),
      );
      crm.faults.holdNextMs = 1_500; // applied, but the answer comes after the tool's 300 ms timeout

      const { run, events, intents } = await runToEnd(agent);

      expect(run.status).toBe("COMPLETED");
      const opId = intents[0].id;
      expect(crm.effects.filter((e) => e === `message:${opId}`)).toHaveLength(1);
      expect(
        crm.hits.filter(
          (h) => h.method === "POST" && h.path === "/messages" && h.headers["x-tether-operation-id"] === opId,
        ),
      ).toHaveLength(1);
      expect(events.find((e) => e.type === "effect.lookup")?.data).toMatchObject({ operationId: opId, found: true });
      expect(latestFact(run.state, "message")).toMatchObject({
        kind: "receipt",
        value: { to: "ada@example.com", operationId: opId },
      });
    });

    it("a lookup that finds nothing (404) lets the call be made again, once", async () => {
      const name = `http.${uid("message").replace("-", "_")}`;
      await registerTool({ db: t.db }, messageTool(crm.url, name), { by: "admin@test" });
      const agent = register(
        scriptedAgent(
          uid("crm"),
          [name],
          [{ kind: "call", tool: name, args: { to: "bob@example.com" }, resultKey: "message", evidence: [] }],
        ),
      );
      crm.faults.failNext = 1; // a 503 before anything was applied: outcome unknown to the caller

      const { run, events, intents } = await runToEnd(agent);

      expect(run.status).toBe("COMPLETED");
      expect(events.find((e) => e.type === "effect.lookup")?.data).toMatchObject({ found: false });
      expect(crm.effects.filter((e) => e === `message:${intents[0].id}`)).toHaveLength(1);
      expect(intents[0]).toMatchObject({ status: "SUCCEEDED", attempt: 2 });
    });

    it("a pure read sends its other arguments as the query; a 404 comes back to the agent as a refusal", async () => {
      const name = `http.${uid("customer").replace("-", "_")}`;
      await registerTool({ db: t.db }, customerTool(crm.url, name), { by: "admin@test" });
      const agent = register(
        scriptedAgent(
          uid("crm"),
          [name],
          [
            {
              kind: "call",
              tool: name,
              args: { customerId: "c7", verbose: true },
              resultKey: "customer",
              evidence: [],
            },
            { kind: "call", tool: name, args: { customerId: "missing" }, evidence: [] },
            ({ state }) => ({ kind: "complete", output: state.observations.at(-1) }),
          ],
        ),
      );

      const { run, intents } = await runToEnd(agent);

      expect(run.status).toBe("COMPLETED");
      expect(latestFact(run.state, "customer")).toMatchObject({
        kind: "observation",
        value: { id: "c7", verbose: "true" },
      });
      expect(run.state.output).toMatchObject({
        kind: "tool_error",
        data: { errorClass: "rejected", details: { status: 404, code: "NOT_FOUND" } },
      });
      expect(intents).toEqual([]); // reads write no intent
    });

    it("arguments that fail the registered JSON Schema are fed back as INVALID_ARGS and never sent", async () => {
      const name = `http.${uid("credit").replace("-", "_")}`;
      await registerTool({ db: t.db }, creditTool(crm.url, name), { by: "admin@test" });
      const agent = register(
        scriptedAgent(
          uid("crm"),
          [name],
          [
            { kind: "call", tool: name, args: { customerId: "c2", amountCents: "lots", extra: 1 }, evidence: [] },
            ({ state }) => ({ kind: "complete", output: state.observations.map((o) => o.message) }),
          ],
        ),
      );
      const before = crm.hits.length;

      const { run, events, intents } = await runToEnd(agent);

      expect(run.status).toBe("COMPLETED");
      const rejected = events.find((e) => e.type === "tool.rejected");
      expect(rejected?.data).toMatchObject({ tool: name, code: "INVALID_ARGS" });
      expect(Object.keys(rejected?.data.fieldErrors as object)).toEqual(expect.arrayContaining(["amountCents"]));
      expect(intents).toEqual([]);
      expect(crm.hits.length).toBe(before);
    });

    it("a disabled tool is gone at its next use; its name can be registered again", async () => {
      const name = `http.${uid("customer").replace("-", "_")}`;
      const first = await registerTool({ db: t.db }, customerTool(crm.url, name), { by: "admin@test" });
      expect(await resolve(name)).toMatchObject({ name, capability: "read", semantics: "pure-read" });

      await disableTool({ db: t.db }, first.id, { by: "admin@test" });
      expect(await resolve(name)).toBeUndefined();
      await expectAppError(disableTool({ db: t.db }, first.id, { by: "admin@test" }), "NOT_FOUND");
      const agent = register(
        scriptedAgent(
          uid("crm"),
          [name],
          [
            { kind: "call", tool: name, args: { customerId: "c1" }, evidence: [] },
            ({ state }) => ({ kind: "complete", output: state.observations.at(-1)?.message }),
          ],
        ),
      );
      const { run, events } = await runToEnd(agent);
      expect(run.state.output).toMatch(/unknown tool/);
      expect(events.find((e) => e.type === "tool.rejected")?.data.code).toBe("UNKNOWN_TOOL");

      const again = await registerTool(
        { db: t.db },
        { ...customerTool(crm.url, name), description: "Read a customer (v2)." },
        { by: "admin@test" },
      );
      expect(again.id).not.toBe(first.id);
      expect(await resolve(name)).toMatchObject({ description: "Read a customer (v2)." });
      expect((await findRegisteredTools(t.db)).filter((r) => r.name === name)).toHaveLength(1);
    });
  });

  describe("MCP tools", () => {
    it("lists a stdio server's tools, and each registered tool runs for an agent with its own semantics", async () => {
      const server = stdioServer(ledger);
      const discovered = await listMcpTools(server);
      expect(discovered.map((d) => d.name)).toEqual(
        expect.arrayContaining(["add", "create_note", "find_note", "refuse"]),
      );
      const schemaOf = (tool: string) => discovered.find((d) => d.name === tool)!.inputSchema;

      const ns = `mcp.${uid("notes").replace("-", "_")}`;
      await registerTool(
        { db: t.db },
        {
          kind: "mcp",
          name: `${ns}.add`,
          description: "Add two numbers.",
          capability: "read",
          semantics: "pure-read",
          inputSchema: schemaOf("add"),
          config: { ...server, tool: "add" },
        },
        { by: "admin@test" },
      );
      await registerTool(
        { db: t.db },
        {
          kind: "mcp",
          name: `${ns}.create_note`,
          description: "Create a note.",
          capability: "draft",
          semantics: "idempotent",
          inputSchema: schemaOf("create_note"),
          config: { ...server, tool: "create_note" },
          impactTemplate: 'creates the note "{{title}}"',
        },
        { by: "admin@test" },
      );
      await registerTool(
        { db: t.db },
        {
          kind: "mcp",
          name: `${ns}.refuse`,
          description: "Refuses.",
          capability: "execute",
          semantics: "unsafe",
          inputSchema: schemaOf("refuse"),
          config: { ...server, tool: "refuse" },
        },
        { by: "admin@test" },
      );

      const agent = register(
        scriptedAgent(
          uid("mcp"),
          [`${ns}.add`, `${ns}.create_note`, `${ns}.refuse`],
          [
            { kind: "call", tool: `${ns}.add`, args: { a: 2, b: 3 }, resultKey: "sum", evidence: [] },
            { kind: "call", tool: `${ns}.create_note`, args: { title: "Hello" }, resultKey: "note", evidence: ["sum"] },
            { kind: "call", tool: `${ns}.create_note`, args: { title: 7 }, evidence: [] },
            { kind: "call", tool: `${ns}.refuse`, args: { reason: "policy" }, evidence: [] },
            ({ state }) => ({
              kind: "complete",
              output: state.observations.map((o) => ({ kind: o.kind, message: o.message })),
            }),
          ],
        ),
      );

      const { run, intents, events } = await runToEnd(agent);

      expect(run.status).toBe("COMPLETED");
      expect(latestFact(run.state, "sum")).toMatchObject({ kind: "observation", value: { sum: 5 } });
      const noteIntent = intents.find((i) => i.tool === `${ns}.create_note`)!;
      expect(latestFact(run.state, "note")).toMatchObject({
        kind: "receipt",
        value: { title: "Hello", operationId: noteIntent.id },
      });
      expect(ledgerLines().filter((l) => l.operationId === noteIntent.id)).toHaveLength(1);
      expect(events.find((e) => e.type === "tool.rejected")?.data).toMatchObject({
        tool: `${ns}.create_note`,
        code: "INVALID_ARGS",
      });
      const observations = run.state.output as Array<{ kind: string; message: string }>;
      expect(observations.at(-1)).toMatchObject({
        kind: "tool_error",
        message: expect.stringMatching(/refused: policy/),
      });
      expect(intents.find((i) => i.tool === `${ns}.refuse`)).toMatchObject({ status: "FAILED", semantics: "unsafe" });
      expect(pool.size()).toBe(1); // three tools, one server process
    });

    it("a lost connection is an unknown outcome (an unsafe tool asks a person); the next call reconnects", async () => {
      const server = stdioServer(ledger);
      const ns = `mcp.${uid("notes").replace("-", "_")}`;
      await registerTool(
        { db: t.db },
        {
          kind: "mcp",
          name: `${ns}.crash`,
          description: "Crashes the server.",
          capability: "execute",
          semantics: "unsafe",
          config: { ...server, tool: "crash" },
        },
        { by: "admin@test" },
      );
      await registerTool(
        { db: t.db },
        {
          kind: "mcp",
          name: `${ns}.add`,
          description: "Add two numbers.",
          capability: "read",
          semantics: "pure-read",
          inputSchema: {
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" } },
            required: ["a", "b"],
          },
          config: { ...server, tool: "add" },
        },
        { by: "admin@test" },
      );

      const crasher = register(
        scriptedAgent(uid("mcp"), [`${ns}.crash`], [{ kind: "call", tool: `${ns}.crash`, args: {}, evidence: [] }]),
      );
      const crashed = await runToEnd(crasher);
      expect(crashed.run.status).toBe("NEEDS_ATTENTION");
      expect(crashed.intents[0]).toMatchObject({ status: "UNKNOWN" });
      expect(await t.store.findPackets({ runId: crashed.run.id })).toEqual([
        expect.objectContaining({ kind: "UNKNOWN_OUTCOME", tool: `${ns}.crash` }),
      ]);

      const adder = register(
        scriptedAgent(
          uid("mcp"),
          [`${ns}.add`],
          [{ kind: "call", tool: `${ns}.add`, args: { a: 40, b: 2 }, resultKey: "sum", evidence: [] }],
        ),
      );
      const added = await runToEnd(adder);
      expect(added.run.status).toBe("COMPLETED");
      expect(latestFact(added.run.state, "sum")?.value).toEqual({ sum: 42 });
    });

    it("a reconcilable MCP tool finds a previous attempt with its lookup tool", async () => {
      const server = stdioServer(ledger);
      const name = `mcp.${uid("notes").replace("-", "_")}.create_note`;
      await registerTool(
        { db: t.db },
        {
          kind: "mcp",
          name,
          description: "Create a note.",
          capability: "draft",
          semantics: "reconcilable",
          inputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
          config: { ...server, tool: "create_note", lookupTool: "find_note" },
        },
        { by: "admin@test" },
      );
      const tool = (await resolve(name))!;
      const call = ctx();
      expect(await tool.lookup!({ title: "x" }, call)).toBeNull();
      const created = await tool.run({ title: "x" }, call);
      expect(await tool.lookup!({ title: "x" }, call)).toEqual(created);
    });

    it("reaches a server over streamable HTTP, for discovery and calls", async () => {
      const server = { transport: "http" as const, url: mcpHttp.url };
      expect((await listMcpTools(server)).map((d) => d.name)).toContain("add");
      const name = `mcp.${uid("remote").replace("-", "_")}.add`;
      await registerTool(
        { db: t.db },
        {
          kind: "mcp",
          name,
          description: "Add two numbers.",
          capability: "read",
          semantics: "pure-read",
          inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
          config: { ...server, tool: "add" },
        },
        { by: "admin@test" },
      );
      const tool = (await resolve(name))!;
      expect(await tool.run({ a: 1, b: 2 }, ctx())).toEqual({ sum: 3 });
      await expect(tool.run({ a: "x" }, ctx())).rejects.toMatchObject({ name: "ToolError", outcome: "not_applied" });
      await expectAppError(listMcpTools({ transport: "http", url: "http://127.0.0.1:9/mcp" }), "INVALID_INPUT");
    });
  });

  describe("granted to an agent by name", () => {
    it("an agent calls a registered MCP tool it does not list once a rule grants it by name with its capability, and is offered it; a wildcard grants nothing", async () => {
      const name = `mcp.${uid("granted").replace("-", "_")}.add`;
      await registerTool(
        { db: t.db },
        {
          kind: "mcp",
          name,
          description: "Add two numbers.",
          capability: "read",
          semantics: "pure-read",
          inputSchema: {
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" } },
            required: ["a", "b"],
          },
          config: { transport: "http", url: mcpHttp.url, tool: "add" },
        },
        { by: "admin@test" },
      );
      const offered: string[][] = [];
      const agent = register({
        ...scriptedAgent(uid("granted"), [], []),
        policy: {
          async decide({ state, tools }) {
            offered.push(tools.map((tool) => tool.name));
            if (state.step === 0)
              return { decision: { kind: "call", tool: name, args: { a: 2, b: 3 }, resultKey: "sum", evidence: [] } };
            return {
              decision: {
                kind: "complete",
                output: { sum: latestFact(state, "sum")?.value ?? null, last: state.observations.at(-1)?.message },
              },
            };
          },
        },
      });
      await t.runtime.permissions.put({ agent: agent.slug, tool: "*", effect: "allow" }, { by: "admin@test" });
      const ungranted = await runToEnd(agent);
      expect(offered[0]).not.toContain(name);
      expect(ungranted.run.state.output).toMatchObject({
        sum: null,
        last: expect.stringMatching(/no permission grants it to .* by name/),
      });
      expect(ungranted.events.filter((e) => e.type === "tool.call")).toEqual([]);

      // A grant by name without the capability the tool needs (it reads): neither offered nor run.
      await t.runtime.permissions.put(
        { agent: agent.slug, tool: name, effect: "allow", capabilities: ["draft", "execute"] },
        { by: "admin@test" },
      );
      offered.length = 0;
      const withoutCapability = await runToEnd(agent);
      expect(offered[0]).not.toContain(name);
      expect(withoutCapability.run.state.output).toMatchObject({ sum: null });
      expect(withoutCapability.events.filter((e) => e.type === "tool.call")).toEqual([]);

      await t.runtime.permissions.put(
        { agent: agent.slug, tool: name, effect: "allow", capabilities: ["read"] },
        { by: "admin@test" },
      );
      offered.length = 0;
      const granted = await runToEnd(agent);
      expect(offered[0]).toContain(name);
      expect(granted.run.state.output).toMatchObject({ sum: { sum: 5 } });
    });
  });

  describe("registration", () => {
    const base = (over: Record<string, unknown>) =>
      ({ ...creditTool(crm.url, `http.${uid("v").replace("-", "_")}`), ...over }) as RegisterToolInput;
    const cases: Array<[string, () => unknown, string]> = [
      [
        "an idempotent tool without its key header",
        () => base({ config: { url: `${crm.url}/customers/{{customerId}}/credits` } }),
        "config.idempotencyHeader",
      ],
      ["a reconcilable tool without a lookup URL", () => base({ semantics: "reconcilable" }), "config.lookupUrl"],
      ["a pure read granted as execute", () => base({ semantics: "pure-read" }), "capability"],
      [
        "an input schema zod cannot check",
        () => base({ inputSchema: { type: "object", properties: { a: { type: "nonsense" } } } }),
        "inputSchema",
      ],
      ["an input schema that is not an object", () => base({ inputSchema: { type: "string" } }), "inputSchema"],
      ["an input schema that is not JSON", () => base({ inputSchema: "{nope" }), "inputSchema"],
      [
        "a URL placeholder that is not a required argument",
        () => base({ config: { url: `${crm.url}/x/{{nobody}}`, idempotencyHeader: "Idempotency-Key" } }),
        "config.url",
      ],
      [
        "a lookup placeholder that is not known",
        () =>
          base({ semantics: "reconcilable", config: { url: `${crm.url}/m`, lookupUrl: `${crm.url}/m?x={{what}}` } }),
        "config.lookupUrl",
      ],
      [
        "an impact sentence naming an unknown argument",
        () => base({ impactTemplate: "credits {{nobody}}" }),
        "impactTemplate",
      ],
      ["a name outside its kind's namespace", () => base({ name: "payments.refund2" }), "name"],
      [
        "a secret from outside TETHER_TOOL_*",
        () =>
          base({
            config: {
              url: `${crm.url}/customers/{{customerId}}/credits`,
              idempotencyHeader: "Idempotency-Key",
              headers: { authorization: "Bearer {{env.DATABASE_URL}}" },
            },
          }),
        "config.headers.authorization",
      ],
      [
        "an unknown method",
        () => base({ config: { url: `${crm.url}/c`, method: "TRACE", idempotencyHeader: "k" } }),
        "config.method",
      ],
      [
        "an MCP tool named without its server",
        () => ({
          kind: "mcp",
          name: "mcp.add",
          description: "d",
          capability: "read",
          semantics: "pure-read",
          config: { transport: "http", url: "http://127.0.0.1:1/mcp", tool: "add" },
        }),
        "name",
      ],
      [
        "a reconcilable MCP tool without a lookup tool",
        () => ({
          kind: "mcp",
          name: "mcp.s.t",
          description: "d",
          capability: "execute",
          semantics: "reconcilable",
          config: { transport: "http", url: "http://127.0.0.1:1/mcp", tool: "t" },
        }),
        "config.lookupTool",
      ],
      [
        "an MCP tool without a transport",
        () => ({
          kind: "mcp",
          name: "mcp.s.t",
          description: "d",
          capability: "read",
          semantics: "pure-read",
          config: { tool: "t" },
        }),
        "config.transport",
      ],
      [
        "a placeholder in the URL's host",
        () => base({ config: { url: "http://{{customerId}}/credits", idempotencyHeader: "Idempotency-Key" } }),
        "config.url",
      ],
      [
        "a loopback URL outside TETHER_TOOL_ALLOWED_HOSTS",
        () =>
          base({
            config: { url: "http://127.0.0.2/customers/{{customerId}}/credits", idempotencyHeader: "Idempotency-Key" },
          }),
        "config.url",
      ],
      [
        "a stdio MCP command outside TETHER_MCP_COMMANDS",
        () => ({
          kind: "mcp",
          name: "mcp.s.t",
          description: "d",
          capability: "read",
          semantics: "pure-read",
          config: { transport: "stdio", command: "sh", args: ["-c", "echo hi"], tool: "t" },
        }),
        "config.command",
      ],
      ["no kind", () => ({ name: "http.x" }), "kind"],
    ];
    it.each(cases)("refuses %s, with a field error", async (_what, input, field) => {
      const before = await t.db.toolRegistration.count();
      const error = await expectAppError(registerTool({ db: t.db }, input(), { by: "admin@test" }), "INVALID_INPUT");
      expect(Object.keys(error.fieldErrors ?? {})).toContain(field);
      expect(await t.db.toolRegistration.count()).toBe(before);
    });

    it("refuses a name already registered (CONFLICT)", async () => {
      const name = `http.${uid("dup").replace("-", "_")}`;
      await registerTool({ db: t.db }, creditTool(crm.url, name), { by: "admin@test" });
      await expectAppError(registerTool({ db: t.db }, creditTool(crm.url, name), { by: "admin@test" }), "CONFLICT");
    });
  });

  describe("routes", () => {
    let server: Awaited<ReturnType<typeof startRouteServer>>;
    const tokens: Record<string, string> = {};
    beforeAll(async () => {
      process.env.DATABASE_URL = url; // the route handlers' composition root follows it
      const admin = await createPersonWithToken(t.db, { role: "admin", scopes: ["admin"] });
      tokens.admin = admin.token;
      tokens.adminEmail = admin.email;
      tokens.reader = (
        await createPersonWithToken(t.db, { role: "operator", scopes: ["runs:read", "runs:write"] })
      ).token;
      server = await startRouteServer();
    });
    afterAll(() => server.close());

    const call = async (method: string, p: string, opts: { token?: string; body?: unknown; raw?: string } = {}) => {
      const res = await fetch(server.url + p, {
        method,
        headers: {
          "content-type": "application/json",
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        },
        body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
      });
      return { status: res.status, json: await res.json() };
    };

    it("need an admin token: 401 without one, 403 without the admin scope", async () => {
      expect(await call("GET", "/api/tools")).toMatchObject({
        status: 401,
        json: { error: { code: "UNAUTHENTICATED" } },
      });
      expect(await call("GET", "/api/tools", { token: tokens.reader })).toMatchObject({
        status: 403,
        json: { error: { code: "FORBIDDEN" } },
      });
      expect(
        (await call("POST", "/api/tools", { token: tokens.reader, body: creditTool(crm.url, "http.nope") })).status,
      ).toBe(403);
      expect(
        (
          await call("POST", "/api/tools/mcp/discover", {
            token: tokens.reader,
            body: { transport: "http", url: mcpHttp.url },
          })
        ).status,
      ).toBe(403);
      expect((await call("DELETE", "/api/tools/tool_x", { token: tokens.reader })).status).toBe(403);
      expect(await t.db.toolRegistration.count({ where: { name: "http.nope" } })).toBe(0);
    });

    it("register (201), refuse a duplicate (409) and bad input (400), list with built-ins, disable", async () => {
      const name = `http.${uid("route").replace("-", "_")}`;
      const input = {
        ...creditTool(crm.url, name),
        config: {
          url: `${crm.url}/customers/{{customerId}}/credits`,
          idempotencyHeader: "Idempotency-Key",
          headers: { authorization: "Bearer s3cret", "x-api-key": "{{env.TETHER_TOOL_CRM_KEY}}" },
        },
      };
      const created = await call("POST", "/api/tools", { token: tokens.admin, body: input });
      expect(created).toMatchObject({
        status: 201,
        json: { tool: { name, source: "http", capability: "execute", semantics: "idempotent" } },
      });
      expect(created.json.tool.config.headers).toEqual({
        authorization: "••••",
        "x-api-key": "{{env.TETHER_TOOL_CRM_KEY}}",
      });
      expect(JSON.stringify(created.json)).not.toContain("s3cret");

      expect(await call("POST", "/api/tools", { token: tokens.admin, body: input })).toMatchObject({
        status: 409,
        json: { error: { code: "CONFLICT" } },
      });
      const invalid = await call("POST", "/api/tools", {
        token: tokens.admin,
        body: { ...input, name: `http.${uid("bad").replace("-", "_")}`, semantics: "pure-read" },
      });
      expect(invalid).toMatchObject({
        status: 400,
        json: { error: { code: "INVALID_INPUT", fieldErrors: { capability: [expect.any(String)] } } },
      });
      expect((await call("POST", "/api/tools", { token: tokens.admin, raw: "{not json" })).status).toBe(400);
      expect((await call("POST", "/api/tools", { token: tokens.admin, body: [] })).status).toBe(400);

      const list = await call("GET", "/api/tools", { token: tokens.admin });
      expect(list.status).toBe(200);
      const byName = new Map<string, Record<string, unknown>>(
        list.json.tools.map((tool: { name: string }) => [tool.name, tool]),
      );
      expect(byName.get("payments.refund")).toMatchObject({
        source: "built-in",
        capability: "execute",
        semantics: "idempotent",
        inputSchema: { type: "object" },
      });
      expect(byName.get(name)).toMatchObject({
        source: "http",
        id: created.json.tool.id,
        inputSchema: { required: ["customerId", "amountCents"] },
      });
      expect(JSON.stringify(list.json)).not.toContain("s3cret");

      const disabled = await call("DELETE", `/api/tools/${created.json.tool.id}`, { token: tokens.admin });
      expect(disabled).toMatchObject({ status: 200, json: { tool: { name, disabledBy: tokens.adminEmail } } });
      expect(await call("DELETE", `/api/tools/${created.json.tool.id}`, { token: tokens.admin })).toMatchObject({
        status: 404,
        json: { error: { code: "NOT_FOUND" } },
      });
      expect(
        (await call("GET", "/api/tools", { token: tokens.admin })).json.tools.map(
          (tool: { name: string }) => tool.name,
        ),
      ).not.toContain(name);
      expect(
        (await call("GET", "/api/tools?includeDisabled=true", { token: tokens.admin })).json.tools.map(
          (tool: { name: string }) => tool.name,
        ),
      ).toContain(name);
      // Audited with each change, as the console's are, plus the token it came through; never a header's value.
      const audit = await t.db.auditLog.findMany({
        where: { target: name },
        orderBy: { at: "asc" },
        select: { actor: true, action: true, data: true },
      });
      expect(audit.map((row) => ({ ...row, data: JSON.parse(row.data) }))).toEqual([
        {
          actor: tokens.adminEmail,
          action: "tools.register",
          data: {
            kind: "http",
            name,
            capability: "execute",
            semantics: "idempotent",
            via: expect.stringMatching(/^token:/),
          },
        },
        {
          actor: tokens.adminEmail,
          action: "tools.disable",
          data: { id: created.json.tool.id, via: expect.stringMatching(/^token:/) },
        },
      ]);
      expect(JSON.stringify(audit)).not.toContain("s3cret");
    });

    it("discover an MCP server's tools (stdio), with 400 for a server that cannot be reached or a bad body", async () => {
      const found = await call("POST", "/api/tools/mcp/discover", { token: tokens.admin, body: stdioServer(ledger) });
      expect(found.status).toBe(200);
      expect(found.json.tools).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            name: "create_note",
            inputSchema: expect.objectContaining({ required: ["title"] }),
          }),
        ]),
      );
      const missing = await call("POST", "/api/tools/mcp/discover", {
        token: tokens.admin,
        body: { transport: "stdio", command: "/nonexistent/mcp-server" },
      });
      expect(missing).toMatchObject({
        status: 400,
        json: { error: { code: "INVALID_INPUT", message: expect.stringMatching(/command not found/) } },
      });
      expect(
        (await call("POST", "/api/tools/mcp/discover", { token: tokens.admin, body: { transport: "carrier-pigeon" } }))
          .status,
      ).toBe(400);
    });

    it("refuse a stdio command outside TETHER_MCP_COMMANDS (nothing spawned), a cloud-metadata URL and a placeholder in a host (400)", async () => {
      const marker = path.join(dir, `spawned-${uid("m")}`);
      const hostile = {
        transport: "stdio",
        command: process.execPath,
        args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`],
      };
      const refused = await call("POST", "/api/tools/mcp/discover", { token: tokens.admin, body: hostile });
      expect(refused).toMatchObject({
        status: 400,
        json: {
          error: {
            code: "INVALID_INPUT",
            fieldErrors: { command: [expect.stringMatching(/is not an allowed MCP command/)] },
          },
        },
      });
      const metadata = await call("POST", "/api/tools/mcp/discover", {
        token: tokens.admin,
        body: { transport: "http", url: "http://169.254.169.254/mcp" },
      });
      expect(metadata).toMatchObject({
        status: 400,
        json: { error: { code: "INVALID_INPUT", fieldErrors: { url: [expect.stringMatching(/link-local/)] } } },
      });

      const name = `mcp.${uid("evil").replace("-", "_")}.t`;
      const registered = await call("POST", "/api/tools", {
        token: tokens.admin,
        body: {
          kind: "mcp",
          name,
          description: "d",
          capability: "read",
          semantics: "pure-read",
          config: { ...hostile, tool: "t" },
        },
      });
      expect(registered).toMatchObject({
        status: 400,
        json: {
          error: {
            code: "INVALID_INPUT",
            fieldErrors: { "config.command": [expect.stringMatching(/TETHER_MCP_COMMANDS/)] },
          },
        },
      });
      const templated = await call("POST", "/api/tools", {
        token: tokens.admin,
        body: {
          ...creditTool(crm.url, `http.${uid("host").replace("-", "_")}`),
          config: { url: "http://{{customerId}}/credits", idempotencyHeader: "Idempotency-Key" },
        },
      });
      expect(templated).toMatchObject({
        status: 400,
        json: {
          error: {
            code: "INVALID_INPUT",
            fieldErrors: { "config.url": [expect.stringMatching(/placeholders .* only be in its path and query/)] },
          },
        },
      });

      expect(await t.db.toolRegistration.count({ where: { name } })).toBe(0);
      expect(existsSync(marker)).toBe(false);
    });
  });
});
