import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  McpError,
  TaskStatusNotificationSchema,
  type ElicitRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoAgents } from "../lib/agents";
import { createDb, type Db } from "../lib/db";
import { getRuntime } from "../lib/runtime.server";
import { seedSandbox } from "../lib/sandbox/seed";
import { startRouteServer } from "./support/route-server";
import { providers, uid } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";
import { createPersonWithToken } from "./support/tokens";
import { until } from "./support/until";

// Tether as an MCP server, driven by the SDK's own client over real HTTP (app/api/mcp/route.ts behind
// the route server), and over stdio through `tether mcp`. A refund run as a task: it waits on its
// approval (input_required), a second person decides it (a tool call, or the elicitation tasks/result
// sends), and the task completes with the run's output.

type ToolResult = {
  isError?: boolean;
  structuredContent?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  content: Array<{ type: string; text?: string }>;
};

/** /api/mcp over HTTP that streams its answers (the route server buffers them whole: fine for JSON, not for an elicitation mid-stream). */
async function startStreamingMcpServer() {
  const route = await import("../app/api/mcp/route");
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const aborted = new AbortController();
    res.on("close", () => aborted.abort());
    const post = req.method === "POST";
    const request = new Request(new URL(req.url ?? "/", `http://${req.headers.host}`), {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: post ? Buffer.concat(chunks) : undefined,
      signal: aborted.signal,
    });
    const response = post ? await route.POST(request) : route.GET();
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return res.end();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(providers())("Tether as an MCP server [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let streaming: Awaited<ReturnType<typeof startStreamingMcpServer>>;
  let db: Db;
  let operator: string; // starts runs
  let reviewer: string; // decides packets (whoever started a run cannot approve it)
  let reader: string; // runs:read only
  let reviewerEmail: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    process.env.DATABASE_URL = url;
    db = createDb(url);
    server = await startRouteServer();
    streaming = await startStreamingMcpServer();
    process.env.TETHER_SANDBOX_URL = `${server.url}/api/sandbox`;
    process.env.TETHER_SANDBOX = "1";
    await seedSandbox(db);
    const runtime = getRuntime();
    for (const agent of demoAgents)
      for (const p of agent.defaultPermissions) await runtime.permissions.put(p, { by: "test" });
    operator = (await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read"] })).token;
    const rev = await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide", "runs:read"] });
    reviewer = rev.token;
    reviewerEmail = rev.email;
    reader = (await createPersonWithToken(db, { role: "reviewer", scopes: ["runs:read"] })).token;
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    delete process.env.TETHER_SANDBOX;
    await streaming.close();
    await server.close();
    await db.$disconnect();
  });

  const connect = async (
    token: string | null,
    opts: {
      base?: string;
      onElicit?: (
        request: ElicitRequest,
      ) => Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, string> }>;
    } = {},
  ) => {
    const client = new Client(
      { name: "tether-test", version: "1.0.0" },
      { capabilities: opts.onElicit ? { elicitation: { form: {} } } : {} },
    );
    if (opts.onElicit) client.setRequestHandler(ElicitRequestSchema, opts.onElicit);
    const transport = new StreamableHTTPClientTransport(new URL(`${opts.base ?? server.url}/api/mcp`), {
      requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const work = () => getRuntime().createWorker().drain();
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;
  const startTask = async (client: Client, args: Record<string, unknown>) =>
    (
      await client.request(
        { method: "tools/call", params: { name: "start_run", arguments: args, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      )
    ).task;
  const refundInput = async () => ({ orderId: (await createSandboxOrder(db, { amountCents: 24_000 })).id });
  const readJson = async (client: Client, uri: string) =>
    JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
  const pendingPacket = async (client: Client, runId: string) => {
    const { structuredContent } = await call(client, "list_packets", { runId });
    expect(structuredContent!.packets).toHaveLength(1);
    return structuredContent!.packets[0] as { id: string; tool: string; content: { impact: string } };
  };

  it("lists the tools with their schemas from the API's zod schemas; start_run may be a task", async () => {
    const client = await connect(reader);
    expect(client.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: {},
      tasks: { requests: { tools: { call: {} } } },
    });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "cancel_run",
      "decide_packet",
      "get_run",
      "list_agents",
      "list_packets",
      "request_approval",
      "start_run",
    ]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.start_run.execution).toEqual({ taskSupport: "optional" });
    expect(byName.start_run.inputSchema).toMatchObject({
      type: "object",
      properties: { agent: { type: "string" }, idempotencyKey: { maxLength: 200 } },
      required: expect.arrayContaining(["agent"]),
    });
    // decide_packet's decisions are decidePacketSchema's, whatever it holds (approvals and unknown outcomes).
    const decision = (byName.decide_packet.inputSchema.properties as Record<string, { enum?: string[] }>).decision;
    expect(decision.enum).toEqual(expect.arrayContaining(["approve", "edit", "reject", "redirect"]));
    expect(byName.decide_packet.inputSchema).toMatchObject({
      properties: { reason: { type: "string" }, instruction: { type: "string" } },
      required: ["id", "decision"],
    });
    const { structuredContent } = await call(client, "list_agents");
    expect(structuredContent!.agents.map((a: { slug: string }) => a.slug)).toContain("refund-agent");
  });

  it("a refund run as a task: working → input_required → decided by a second person → completed with its result", async () => {
    const operatorClient = await connect(operator);
    const reviewerClient = await connect(reviewer);
    const key = uid("key");
    const input = await refundInput();
    const task = await startTask(operatorClient, { agent: "refund-agent", input, idempotencyKey: key });
    expect(task).toMatchObject({ taskId: expect.stringMatching(/^run_/), status: "working", ttl: null });
    expect((await startTask(operatorClient, { agent: "refund-agent", input, idempotencyKey: key })).taskId).toBe(
      task.taskId,
    );

    await work();
    const waiting = await operatorClient.experimental.tasks.getTask(task.taskId);
    expect(waiting.status).toBe("input_required");
    const packet = await pendingPacket(reviewerClient, task.taskId);
    expect(waiting.statusMessage).toContain(packet.id);
    expect(packet.content.impact).toMatch(/refunds \$240\.00/);

    // Separation of duties: the person who started the run cannot approve it; a reader cannot decide.
    const own = await call(operatorClient, "decide_packet", { id: packet.id, decision: "approve" });
    expect(own).toMatchObject({ isError: true, structuredContent: { error: { code: "FORBIDDEN" } } });
    expect(await call(await connect(reader), "decide_packet", { id: packet.id, decision: "approve" })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "FORBIDDEN", message: expect.stringContaining("packets:decide") } },
    });
    expect(await call(reviewerClient, "decide_packet", { id: packet.id, decision: "reject" })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "INVALID_INPUT", fieldErrors: { reason: expect.any(Array) } } },
    });
    const decided = await call(reviewerClient, "decide_packet", { id: packet.id, decision: "approve" });
    expect(decided.structuredContent).toMatchObject({ packet: { status: "APPROVED", decidedBy: reviewerEmail } });

    await work();
    expect(await operatorClient.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "completed" });
    const result = await operatorClient.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      run: { id: task.taskId, status: "COMPLETED" },
      output: expect.anything(),
    });
    expect(result._meta).toMatchObject({ "io.modelcontextprotocol/related-task": { taskId: task.taskId } });

    const { structuredContent: shown } = await call(reviewerClient, "get_run", { id: task.taskId });
    expect(shown).toMatchObject({
      run: { status: "COMPLETED", startedBy: expect.stringContaining("@example.com") },
      recovery: { definitelyHappened: expect.any(Array) },
      pendingPackets: [],
    });
    expect(shown!.recentEvents.at(-1).type).toMatch(/run\./);
    const { tasks } = await reviewerClient.experimental.tasks.listTasks();
    expect(tasks.map((t) => t.taskId)).toContain(task.taskId);

    // The run's state and trace as resources.
    const templates = await reviewerClient.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "tether://runs/{id}/state",
      "tether://runs/{id}/trace{?after,limit}",
    ]);
    const state = await readJson(reviewerClient, `tether://runs/${task.taskId}/state`);
    expect(state).toMatchObject({ runId: task.taskId, status: "COMPLETED", state: { output: expect.anything() } });
    const trace = await readJson(reviewerClient, `tether://runs/${task.taskId}/trace?after=3&limit=2`);
    expect(trace.events.map((e: { seq: number }) => e.seq)).toEqual([4, 5]);
  });

  it("start_run without a task answers at once, as POST /api/runs does", async () => {
    const client = await connect(operator);
    const started = await call(client, "start_run", { agent: "refund-agent", input: await refundInput() });
    expect(started.structuredContent).toMatchObject({
      id: expect.stringMatching(/^run_/),
      status: "QUEUED",
      created: true,
    });
    expect(await call(client, "start_run", { agent: "no-such-agent", input: {} })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "NOT_FOUND" } },
    });
    expect(await call(client, "start_run", { input: {} })).toMatchObject({ isError: true });
    await call(client, "cancel_run", { id: started.structuredContent!.id, reason: "test" });
  });

  it("tasks/cancel cancels the run; again it answers the cancelled task; a completed task cannot be cancelled", async () => {
    const client = await connect(operator);
    const task = await startTask(client, { agent: "refund-agent", input: await refundInput() });
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({
      taskId: task.taskId,
      status: "cancelled",
    });
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ status: "cancelled" });
    expect((await call(client, "get_run", { id: task.taskId })).structuredContent).toMatchObject({
      run: { status: "CANCELLED" },
    });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, structuredContent: { run: { status: "CANCELLED" } } });

    const small = await startTask(client, {
      agent: "refund-agent",
      input: { orderId: (await createSandboxOrder(db, { amountCents: 2_000 })).id },
    });
    await work(); // under the approval limit: completes without a gate
    expect(await client.experimental.tasks.getTask(small.taskId)).toMatchObject({ status: "completed" });
    await expect(client.experimental.tasks.cancelTask(small.taskId)).rejects.toMatchObject({ code: -32602 });
    await expect(client.experimental.tasks.getTask("run_nope")).rejects.toBeInstanceOf(McpError);
  });

  it("refuses a missing or unknown token (401) and a tool or task without its scope", async () => {
    await expect(connect(null)).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining("UNAUTHENTICATED"),
    });
    await expect(connect("tth_not_a_token")).rejects.toMatchObject({ code: 401 });
    const client = await connect(reader);
    expect(await call(client, "start_run", { agent: "refund-agent", input: await refundInput() })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "FORBIDDEN", message: expect.stringContaining("runs:write") } },
    });
    await expect(startTask(client, { agent: "refund-agent", input: await refundInput() })).rejects.toThrow(
      /runs:write/,
    );
    const runId = (
      await call(await connect(operator), "start_run", { agent: "refund-agent", input: await refundInput() })
    ).structuredContent!.id as string;
    await expect(client.experimental.tasks.cancelTask(runId)).rejects.toThrow(/runs:write/);
    expect(await client.experimental.tasks.getTask(runId)).toMatchObject({ taskId: runId });
  });

  it("tasks/result offers the waiting packet as an elicitation; the answer is a decision by the answering person", async () => {
    const operatorClient = await connect(operator, { base: streaming.url });
    const task = await startTask(operatorClient, { agent: "refund-agent", input: await refundInput() });
    await work();
    const elicitations: ElicitRequest[] = [];
    const reviewerClient = await connect(reviewer, {
      base: streaming.url,
      onElicit: async (request) => {
        elicitations.push(request);
        return { action: "accept", content: { decision: "approve" } };
      },
    });
    const statuses: string[] = [];
    reviewerClient.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      statuses.push(n.params.status);
    });
    const result = reviewerClient.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    await until(
      "the elicitation was answered",
      async () => (await db.decisionPacket.findFirst({ where: { runId: task.taskId } }))?.status === "APPROVED",
    );
    const [elicitation] = elicitations;
    expect(elicitation.params).toMatchObject({
      mode: "form",
      message: expect.stringMatching(/refunds \$240\.00/),
      _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } },
    });
    const form = elicitation.params as {
      requestedSchema: { properties: Record<string, { oneOf?: Array<{ const: string }> }> };
    };
    expect(form.requestedSchema.properties.decision.oneOf!.map((o) => o.const)).toEqual(
      expect.arrayContaining(["approve", "reject", "redirect"]),
    );
    expect(await db.decisionPacket.findFirst({ where: { runId: task.taskId } })).toMatchObject({
      decidedBy: reviewerEmail,
    });
    await work();
    expect(await result).toMatchObject({ structuredContent: { run: { status: "COMPLETED" } } });
    expect(elicitations).toHaveLength(1);
    expect(statuses.at(-1)).toBe("completed"); // status changes come on the open stream too
  });

  it("an answer that decidePacket refuses is asked again with the reason; a declined one leaves the packet to others", async () => {
    // An operator who may decide packets starts a run and follows their own task: approving it is
    // refused (they started it), so they are asked again with the reason, and then they decline.
    const { token } = await createPersonWithToken(db, {
      role: "operator",
      scopes: ["runs:write", "runs:read", "packets:decide"],
    });
    const operatorClient = await connect(token, { base: streaming.url });
    const task = await startTask(operatorClient, { agent: "refund-agent", input: await refundInput() });
    await work();
    const messages: string[] = [];
    const follower = await connect(token, {
      base: streaming.url,
      onElicit: async (request) => {
        messages.push((request.params as { message: string }).message);
        return messages.length === 1 ? { action: "accept", content: { decision: "approve" } } : { action: "decline" };
      },
    });
    const result = follower.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    await until("asked twice", () => messages.length === 2);
    expect(messages[1]).toMatch(/previous answer was refused: You requested this action/);
    const packet = await pendingPacket(operatorClient, task.taskId);
    expect(
      await call(await connect(reviewer), "decide_packet", {
        id: packet.id,
        decision: "reject",
        reason: "not this one",
      }),
    ).toMatchObject({ structuredContent: { packet: { status: "REJECTED" } } });
    await work();
    expect(await result).toMatchObject({ structuredContent: { run: { id: task.taskId } } });
    expect(messages).toHaveLength(2);
  });

  // The client configurations docs/mcp.md gives, as they are written (placeholders filled in).
  const documented = () => {
    const blocks = [...readFileSync("docs/mcp.md", "utf8").matchAll(/```json\n([\s\S]*?)```/g)].map(
      (m) => JSON.parse(m[1]).mcpServers.tether,
    );
    return { http: blocks.find((b) => b.type === "http"), stdio: blocks.find((b) => b.command) };
  };

  it("docs/mcp.md's HTTP configuration connects", async () => {
    const { http } = documented();
    const endpoint = new URL(http.url);
    const headers = Object.fromEntries(
      Object.entries(http.headers as Record<string, string>).map(([k, v]) => [k, v.replace("tth_your_token", reader)]),
    );
    const client = new Client({ name: "tether-docs-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.pathname, server.url), { requestInit: { headers } }),
    );
    clients.push(client);
    expect((await client.listTools()).tools).toHaveLength(7);
  });

  it("`tether mcp` (docs/mcp.md's stdio configuration) serves the same tools and tasks, relaying to /api/mcp with TETHER_TOKEN", async () => {
    const { stdio } = documented();
    const transport = new StdioClientTransport({
      command: stdio.command === "node" ? process.execPath : stdio.command,
      args: (stdio.args as string[]).map((a) => a.replace("/path/to/tether", process.cwd())),
      env: { PATH: process.env.PATH ?? "", ...stdio.env, TETHER_URL: server.url, TETHER_TOKEN: operator },
      stderr: "pipe",
    });
    const client = new Client({ name: "tether-stdio-test", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("decide_packet");
    const task = await startTask(client, { agent: "refund-agent", input: await refundInput() });
    await work();
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "input_required" });
    const packet = await pendingPacket(client, task.taskId);
    expect(await call(client, "decide_packet", { id: packet.id, decision: "approve" })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "FORBIDDEN" } },
    });
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ status: "cancelled" });
  });

  it("`tether mcp` relays a packet's elicitation and its answer", async () => {
    const { stdio } = documented();
    const task = await startTask(await connect(operator), { agent: "refund-agent", input: await refundInput() });
    await work();
    const client = new Client(
      { name: "tether-stdio-reviewer", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { decision: "approve" } }));
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: (stdio.args as string[]).map((a) => a.replace("/path/to/tether", process.cwd())),
        env: { PATH: process.env.PATH ?? "", TETHER_URL: streaming.url, TETHER_TOKEN: reviewer },
        stderr: "pipe",
      }),
    );
    clients.push(client);
    const result = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    await until(
      "the relayed answer decided the packet",
      async () => (await db.decisionPacket.findFirst({ where: { runId: task.taskId } }))?.decidedBy === reviewerEmail,
    );
    await work();
    expect(await result).toMatchObject({ structuredContent: { run: { status: "COMPLETED" } } });
  });
});
