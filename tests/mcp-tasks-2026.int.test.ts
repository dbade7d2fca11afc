import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { demoAgents } from "../lib/agents";
import { createDb, type Db } from "../lib/db";
import { getRuntime } from "../lib/runtime.server";
import { seedSandbox } from "../lib/sandbox/seed";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  AckResult,
  CallToolResult,
  connectModern,
  modernClient,
  CreateTaskResult,
  DiscoverResult,
  GetTaskResult,
  MODERN,
  TASKS_EXTENSION,
  type ModernClient,
} from "./support/mcp-2026-client";
import { startRouteServer } from "./support/route-server";
import { providers, uid } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";
import { createPersonWithToken } from "./support/tokens";

// MCP 2026-07-28 and its tasks extension (io.modelcontextprotocol/tasks) at /api/mcp, beside 2025-11-25
// (tests/mcp-server.int.test.ts keeps that one's behaviour). The SDK's own Client and transport over real
// HTTP, speaking the new revision (tests/support/mcp-2026-client.ts): a refund run started as a task waits
// on its approval, the pending packet is an input request in tasks/get, a second person's tasks/update
// decides it, and tasks/get inlines the run's result.

describe.each(providers())("MCP 2026-07-28: the tasks extension [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let operator: string; // starts runs
  let operatorEmail: string;
  let reviewer: string; // decides packets (whoever started a run cannot approve it)
  let reviewerEmail: string;
  let reader: string; // runs:read only
  let caller: string; // gates:request only: asks for approvals
  let callerEmail: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    process.env.DATABASE_URL = url;
    db = createDb(url);
    server = await startRouteServer();
    process.env.TETHER_SANDBOX_URL = `${server.url}/api/sandbox`;
    process.env.TETHER_SANDBOX = "1";
    await seedSandbox(db);
    const runtime = getRuntime();
    for (const agent of demoAgents)
      for (const p of agent.defaultPermissions) await runtime.permissions.put(p, { by: "test" });
    const op = await createPersonWithToken(db, {
      role: "operator",
      scopes: ["runs:write", "runs:read", "packets:decide"],
    });
    operator = op.token;
    operatorEmail = op.email;
    const rev = await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide", "runs:read"] });
    reviewer = rev.token;
    reviewerEmail = rev.email;
    reader = (await createPersonWithToken(db, { role: "reviewer", scopes: ["runs:read"] })).token;
    const asker = await createPersonWithToken(db, { role: "operator", scopes: ["gates:request"] });
    caller = asker.token;
    callerEmail = asker.email;
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    delete process.env.TETHER_SANDBOX;
    await server.close();
    await db.$disconnect();
  });

  const connect = async (token: string): Promise<ModernClient> => {
    const modern = await connectModern(server.url, token);
    clients.push(modern.client);
    return modern;
  };
  const work = () => getRuntime().createWorker().drain();
  const refundInput = async () => ({ orderId: (await createSandboxOrder(db, { amountCents: 24_000 })).id });
  const startTask = async (client: ModernClient, args: Record<string, unknown>) =>
    client.request("tools/call", { name: "start_run", arguments: args }, CreateTaskResult);
  const getTask = (client: ModernClient, taskId: string) => client.request("tasks/get", { taskId }, GetTaskResult);
  const update = (client: ModernClient, taskId: string, inputResponses: Record<string, unknown>) =>
    client.request("tasks/update", { taskId, inputResponses }, AckResult);
  /** A raw POST, for what the SDK client would never send (mismatched headers). */
  const post = async (token: string, headers: Record<string, string>, body: unknown) => {
    const response = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        result?: Record<string, unknown>;
        error?: { code: number; message: string; data?: unknown };
      },
    };
  };
  const meta = (tasks = true) => ({
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
  });

  it("server/discover advertises the tasks extension; results say their resultType; initialize (2025-11-25) does not change", async () => {
    const client = await connect(reader);
    const discovered = await client.request("server/discover", {}, DiscoverResult);
    expect(discovered.supportedVersions).toEqual(expect.arrayContaining([MODERN, "2025-11-25"]));
    expect(discovered.capabilities).toEqual({ tools: {}, resources: {}, extensions: { [TASKS_EXTENSION]: {} } });
    expect(discovered._meta).toMatchObject({ "io.modelcontextprotocol/serverInfo": { name: "tether" } });

    const listed = await client.request(
      "tools/list",
      {},
      z.looseObject({
        resultType: z.literal("complete"),
        tools: z.array(z.looseObject({ name: z.string() })),
        ttlMs: z.number(),
        cacheScope: z.string(),
      }),
    );
    expect(listed).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "private" });
    expect(listed.tools.map((t) => t.name)).toContain("start_run");

    // The legacy handshake keeps its capabilities: the extension is not defined under 2025-11-25.
    const legacy = new Client({ name: "legacy", version: "1.0.0" });
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${reader}` } },
      }),
    );
    clients.push(legacy);
    expect(legacy.getServerVersion()).toMatchObject({ name: "tether" });
    expect(legacy.getServerCapabilities()).toEqual({
      tools: {},
      resources: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
  });

  it("start_run as a task: input_required with the packet as an input request → a second person's tasks/update decides it → the result inlined", async () => {
    const operatorClient = await connect(operator);
    const reviewerClient = await connect(reviewer);
    const key = uid("key");
    const input = await refundInput();
    const task = await startTask(operatorClient, { agent: "refund-agent", input, idempotencyKey: key });
    expect(task).toMatchObject({
      resultType: "task",
      taskId: expect.stringMatching(/^run_/),
      status: "working",
      ttlMs: null,
      pollIntervalMs: expect.any(Number),
    });
    expect(task).not.toHaveProperty("content");
    // Durably created: tasks/get resolves at once; the same idempotency key is the same task.
    expect(await getTask(reviewerClient, task.taskId)).toMatchObject({
      resultType: "complete",
      taskId: task.taskId,
      status: "working",
    });
    expect((await startTask(operatorClient, { agent: "refund-agent", input, idempotencyKey: key })).taskId).toBe(
      task.taskId,
    );

    await work();
    const waiting = await getTask(operatorClient, task.taskId);
    expect(waiting.status).toBe("input_required");
    const packet = await db.decisionPacket.findFirstOrThrow({ where: { runId: task.taskId } });
    const keys = Object.keys(waiting.inputRequests!);
    expect(keys).toEqual([`${packet.id}/0`]);
    const asked = waiting.inputRequests![keys[0]];
    expect(asked.params.message).toMatch(/refunds \$240\.00/);
    const decision = asked.params.requestedSchema.properties.decision as { oneOf: Array<{ const: string }> };
    expect(decision.oneOf.map((o) => o.const)).toEqual(expect.arrayContaining(["approve", "reject", "redirect"]));
    expect(waiting.statusMessage).toContain("tasks/update");

    // Separation of duties: the run's starter may decide packets, but not approve their own run.
    await expect(
      update(operatorClient, task.taskId, { [keys[0]]: { action: "accept", content: { decision: "approve" } } }),
    ).rejects.toMatchObject({
      code: -32600,
      message: expect.stringMatching(/refused: You requested this action|started/i),
    });
    // A reader may follow the task but not answer it; an answer that is no decision form's is refused and names what is wrong.
    await expect(
      update(await connect(reader), task.taskId, { [keys[0]]: { action: "accept", content: { decision: "approve" } } }),
    ).rejects.toThrow(/packets:decide/);
    await expect(
      update(reviewerClient, task.taskId, { [keys[0]]: { action: "accept", content: { decision: "reject" } } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("reason") });
    expect(await db.decisionPacket.findUniqueOrThrow({ where: { id: packet.id } })).toMatchObject({
      status: "PENDING",
    });

    // The reviewer answers; the same answer again and an unknown key are acknowledged and ignored.
    expect(
      await update(reviewerClient, task.taskId, {
        [keys[0]]: { action: "accept", content: { decision: "approve" } },
        "no-such-key": { action: "accept", content: { decision: "reject", reason: "x" } },
      }),
    ).toMatchObject({ resultType: "complete" });
    expect(
      await update(reviewerClient, task.taskId, {
        [keys[0]]: { action: "accept", content: { decision: "reject", reason: "changed my mind" } },
      }),
    ).toMatchObject({ resultType: "complete" });
    expect(await db.decisionPacket.findUniqueOrThrow({ where: { id: packet.id } })).toMatchObject({
      status: "APPROVED",
      decidedBy: reviewerEmail,
    });
    expect(await db.traceEvent.count({ where: { runId: task.taskId, type: "gate.decided" } })).toBe(1);

    await work();
    const done = await getTask(operatorClient, task.taskId);
    expect(done).toMatchObject({
      status: "completed",
      result: {
        structuredContent: {
          run: { id: task.taskId, status: "COMPLETED", startedBy: operatorEmail },
          output: expect.anything(),
        },
      },
    });
    expect(done.result!.isError).toBeFalsy();
    expect(done).not.toHaveProperty("inputRequests");
    expect(await db.sandboxPayment.count({ where: { orderId: input.orderId, kind: "refund" } })).toBe(1); // refunded once

    // Resources under 2026-07-28: Mcp-Name carries the URI; a run's state is read afresh every time.
    const read = await reviewerClient.request(
      "resources/read",
      { uri: `tether://runs/${task.taskId}/state` },
      z.looseObject({
        resultType: z.literal("complete"),
        ttlMs: z.literal(0),
        cacheScope: z.literal("private"),
        contents: z.array(z.looseObject({ text: z.string() })),
      }),
    );
    expect(JSON.parse(read.contents[0].text)).toMatchObject({ runId: task.taskId, status: "COMPLETED" });
  });

  it("without the extension start_run answers at once; the old `task` parameter is ignored; tasks/result and tasks/list are gone (-32601, 404)", async () => {
    const client = await connect(operator);
    const now = await client.request(
      "tools/call",
      { name: "start_run", arguments: { agent: "refund-agent", input: await refundInput() }, task: { ttl: 1000 } },
      CallToolResult,
      { tasks: false },
    );
    expect(now).toMatchObject({
      resultType: "complete",
      structuredContent: { id: expect.stringMatching(/^run_/), status: "QUEUED", created: true },
    });
    const runId = (now.structuredContent as { id: string }).id;
    await expect(client.request("tasks/result", { taskId: runId }, AckResult)).rejects.toMatchObject({
      code: 404,
      message: expect.stringContaining("-32601"),
    });
    await expect(client.request("tasks/list", {}, AckResult)).rejects.toMatchObject({
      code: 404,
      message: expect.stringContaining("-32601"),
    });
    // The same run is a task all the same: tasks/get follows any run the token may read.
    expect(await getTask(client, runId)).toMatchObject({ taskId: runId, status: "working" });

    // Under 2025-11-25 the same methods still answer (the SDK's client negotiates that version).
    const legacy = new Client({ name: "legacy", version: "1.0.0" });
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${operator}` } },
      }),
    );
    clients.push(legacy);
    const legacyTask = (
      await legacy.request(
        {
          method: "tools/call",
          params: {
            name: "start_run",
            arguments: { agent: "refund-agent", input: await refundInput() },
            task: { ttl: 60_000 },
          },
        },
        CreateTaskResultSchema,
      )
    ).task;
    expect((await legacy.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(legacyTask.taskId);
    await legacy.experimental.tasks.cancelTask(legacyTask.taskId);
    expect(await legacy.experimental.tasks.getTaskResult(legacyTask.taskId, CallToolResultSchema)).toMatchObject({
      isError: true,
      structuredContent: { run: { status: "CANCELLED" } },
    });
    await client.request("tasks/cancel", { taskId: runId }, AckResult);
  });

  it("tasks/cancel is an acknowledgement: the run is cancelled; again, or on a finished task, it is acknowledged; an unknown task is an error", async () => {
    const client = await connect(operator);
    const task = await startTask(client, { agent: "refund-agent", input: await refundInput() });
    expect(await client.request("tasks/cancel", { taskId: task.taskId }, AckResult)).toEqual({
      resultType: "complete",
      _meta: expect.any(Object),
    });
    expect(await getTask(client, task.taskId)).toMatchObject({ status: "cancelled" });
    expect(await client.request("tasks/cancel", { taskId: task.taskId }, AckResult)).toMatchObject({
      resultType: "complete",
    });

    const small = await startTask(client, {
      agent: "refund-agent",
      input: { orderId: (await createSandboxOrder(db, { amountCents: 2_000 })).id },
    });
    await work(); // under the approval limit: completes without a gate
    expect(await client.request("tasks/cancel", { taskId: small.taskId }, AckResult)).toMatchObject({
      resultType: "complete",
    });
    expect(await getTask(client, small.taskId)).toMatchObject({
      status: "completed",
      result: { structuredContent: { run: { status: "COMPLETED" } } },
    });
    await expect(client.request("tasks/cancel", { taskId: "run_nope" }, AckResult)).rejects.toMatchObject({
      code: -32602,
    });
    await expect(getTask(client, "run_nope")).rejects.toMatchObject({ code: -32602 });
    // Cancelling needs runs:write, as cancel_run does.
    const other = await startTask(client, { agent: "refund-agent", input: await refundInput() });
    await expect((await connect(reader)).request("tasks/cancel", { taskId: other.taskId }, AckResult)).rejects.toThrow(
      /runs:write/,
    );
    expect(await getTask(client, other.taskId)).toMatchObject({ status: "working" });
    await client.request("tasks/cancel", { taskId: other.taskId }, AckResult);
  });

  it("refuses a request whose headers do not match its body (-32020, 400) or whose version is unknown (-32022), and writes nothing", async () => {
    const runsBefore = await db.run.count({ where: { startedBy: operatorEmail } });
    const call = (name = "start_run") => ({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: { agent: "refund-agent", input: { orderId: "ord_x" } }, _meta: meta() },
    });
    const headers = { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "start_run" };

    const wrongName = await post(operator, { ...headers, "mcp-name": "list_agents" }, call());
    expect(wrongName).toMatchObject({
      status: 400,
      body: {
        error: {
          code: -32020,
          message: expect.stringContaining(
            "Mcp-Name header value 'list_agents' does not match params.name 'start_run'",
          ),
        },
      },
    });
    expect(await post(operator, { ...headers, "mcp-method": "tools/list" }, call())).toMatchObject({
      status: 400,
      body: { error: { code: -32020, message: expect.stringContaining("Mcp-Method") } },
    });
    const { "mcp-method": _m, ...noMethod } = headers;
    expect(await post(operator, noMethod, call())).toMatchObject({
      status: 400,
      body: { error: { code: -32020, message: expect.stringContaining("Mcp-Method header is missing") } },
    });
    const { "mcp-name": _n, ...noName } = headers;
    expect(await post(operator, noName, call())).toMatchObject({
      status: 400,
      body: { error: { code: -32020, message: expect.stringContaining("Mcp-Name header is missing") } },
    });
    expect(await post(operator, { ...headers, "mcp-protocol-version": "2025-11-25" }, call())).toMatchObject({
      status: 400,
      body: { error: { code: -32020, message: expect.stringContaining("MCP-Protocol-Version") } },
    });
    // tasks/* name the task in Mcp-Name.
    expect(
      await post(
        operator,
        { "mcp-protocol-version": MODERN, "mcp-method": "tasks/get", "mcp-name": "run_other" },
        { jsonrpc: "2.0", id: 2, method: "tasks/get", params: { taskId: "run_one", _meta: meta() } },
      ),
    ).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    // A Base64-encoded name is decoded before the comparison.
    const encoded = await post(
      operator,
      { ...headers, "mcp-name": `=?base64?${Buffer.from("list_agents").toString("base64")}?=` },
      call("list_agents"),
    );
    expect(encoded).toMatchObject({
      status: 200,
      body: { result: { resultType: "complete", structuredContent: { agents: expect.any(Array) } } },
    });
    const future = await post(
      operator,
      { ...headers, "mcp-protocol-version": "2099-01-01" },
      {
        ...call(),
        params: { ...call().params, _meta: { ...meta(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      },
    );
    expect(future).toMatchObject({
      status: 400,
      body: { error: { code: -32022, data: { supported: [MODERN], requested: "2099-01-01" } } },
    });
    expect(await db.run.count({ where: { startedBy: operatorEmail } })).toBe(runsBefore);
  });

  it("`tether mcp` relays 2026-07-28 requests with the headers that revision asks for", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [`${process.cwd()}/bin/tether.mjs`, "mcp"],
      env: { PATH: process.env.PATH ?? "", TETHER_URL: server.url, TETHER_TOKEN: operator },
      stderr: "pipe",
    });
    const client = await modernClient(transport);
    clients.push(client.client);
    expect((await client.request("server/discover", {}, DiscoverResult)).capabilities.extensions).toEqual({
      [TASKS_EXTENSION]: {},
    });
    const task = await startTask(client, { agent: "refund-agent", input: await refundInput() });
    await work();
    expect(Object.keys((await getTask(client, task.taskId)).inputRequests!)).toHaveLength(1);
    expect(await client.request("tasks/cancel", { taskId: task.taskId }, AckResult)).toMatchObject({
      resultType: "complete",
    });
    expect(await getTask(client, task.taskId)).toMatchObject({ status: "cancelled" });
  });

  it("bad tasks/update input is a clear error and decides nothing", async () => {
    const operatorClient = await connect(operator);
    const reviewerClient = await connect(reviewer);
    const task = await startTask(operatorClient, { agent: "refund-agent", input: await refundInput() });
    await work();
    const key = Object.keys((await getTask(reviewerClient, task.taskId)).inputRequests!)[0];
    await expect(reviewerClient.request("tasks/update", { taskId: task.taskId }, AckResult)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("inputResponses"),
      data: { code: "INVALID_INPUT", fieldErrors: { inputResponses: expect.any(Array) } },
    });
    await expect(
      update(reviewerClient, task.taskId, { [key]: { content: { decision: "approve" } } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("not an elicitation result") });
    // A decline leaves the packet to other deciders.
    expect(await update(reviewerClient, task.taskId, { [key]: { action: "decline" } })).toMatchObject({
      resultType: "complete",
    });
    expect(await db.decisionPacket.findFirstOrThrow({ where: { runId: task.taskId } })).toMatchObject({
      status: "PENDING",
    });
    expect(Object.keys((await getTask(reviewerClient, task.taskId)).inputRequests!)).toEqual([key]);
    await operatorClient.request("tasks/cancel", { taskId: task.taskId }, AckResult);
  });

  const approvalArgs = (key = uid("gate")) => ({
    action: {
      tool: "wire_transfer",
      args: { to: "ACME", amountCents: 50_000 },
      schema: {
        type: "object",
        properties: { to: { type: "string" }, amountCents: { type: "integer" } },
        required: ["to", "amountCents"],
      },
    },
    description: "Pay the ACME invoice",
    impact: "moves $500.00 to ACME",
    idempotencyKey: key,
  });

  it("request_approval: a task only (-32021 without the extension); working while a person decides in the inbox; completed with the decision", async () => {
    const client = await connect(caller);
    const refused = await post(
      caller,
      { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "request_approval" },
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "request_approval", arguments: approvalArgs(), _meta: meta(false) },
      },
    );
    expect(refused).toMatchObject({
      status: 400,
      body: { error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } } },
    });
    await expect(
      client.request("tools/call", { name: "request_approval", arguments: approvalArgs() }, CallToolResult, {
        tasks: false,
      }),
    ).rejects.toMatchObject({ code: 400, message: expect.stringContaining("-32021") });
    expect(await db.run.count({ where: { startedBy: callerEmail } })).toBe(0);

    const args = approvalArgs();
    const task = await client.request("tools/call", { name: "request_approval", arguments: args }, CreateTaskResult);
    expect(task).toMatchObject({ resultType: "task", status: "working" });
    expect(
      (await client.request("tools/call", { name: "request_approval", arguments: args }, CreateTaskResult)).taskId,
    ).toBe(task.taskId);
    await work(); // the gate run raises its packet
    const packet = await db.decisionPacket.findFirstOrThrow({ where: { runId: task.taskId } });
    expect(packet.status).toBe("PENDING");
    // The requester is asked nothing (it cannot approve its own request): the task stays working.
    const waiting = await getTask(client, task.taskId);
    expect(waiting).toMatchObject({
      status: "working",
      statusMessage: expect.stringContaining("cannot approve your own request"),
    });
    expect(waiting).not.toHaveProperty("inputRequests");
    expect(
      await update(client, task.taskId, { [`${packet.id}/0`]: { action: "accept", content: { decision: "approve" } } }),
    ).toMatchObject({ resultType: "complete" });
    expect(await db.decisionPacket.findUniqueOrThrow({ where: { id: packet.id } })).toMatchObject({
      status: "PENDING",
    });

    // A person decides in the inbox (runtime.decidePacket, as the inbox's action does): edited arguments.
    await getRuntime().decidePacket({
      packetId: packet.id,
      reviewer: reviewerEmail,
      input: { decision: "edit", args: { to: "ACME", amountCents: 40_000 } },
    });
    const done = await getTask(client, task.taskId);
    expect(done).toMatchObject({
      status: "completed",
      result: {
        structuredContent: {
          gateId: task.taskId,
          status: "edited",
          action: { tool: "wire_transfer" },
          approvedArgs: { to: "ACME", amountCents: 40_000 },
          decidedBy: reviewerEmail,
          approvers: [reviewerEmail],
          packetId: packet.id,
        },
      },
    });
    expect(done.result!.isError).toBeFalsy();
    // The caller without runs:read sees its gate, not other runs.
    const run = (await startTask(await connect(operator), { agent: "refund-agent", input: await refundInput() }))
      .taskId;
    await expect(getTask(client, run)).rejects.toMatchObject({ code: -32602 });
    await expect(
      client.request(
        "tools/call",
        { name: "request_approval", arguments: { ...approvalArgs(), callbackUrl: "https://example.com/hook" } },
        CreateTaskResult,
      ),
    ).rejects.toMatchObject({ code: -32602, data: { fieldErrors: { callbackUrl: expect.any(Array) } } });
    await expect(
      (await connect(reviewer)).request(
        "tools/call",
        { name: "request_approval", arguments: approvalArgs() },
        CreateTaskResult,
      ),
    ).rejects.toThrow(/gates:request/);
    await (await connect(operator)).request("tasks/cancel", { taskId: run }, AckResult);
  });

  it("request_approval under 2025-11-25: -32601 without params.task; as a task its result is the decision", async () => {
    const legacy = new Client({ name: "legacy", version: "1.0.0" });
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${caller}` } },
      }),
    );
    clients.push(legacy);
    expect((await legacy.listTools()).tools.find((t) => t.name === "request_approval")).toMatchObject({
      execution: { taskSupport: "required" },
      inputSchema: { required: expect.arrayContaining(["action", "idempotencyKey"]) },
    });
    // (The SDK's callTool refuses this itself, -32600, having read taskSupport: the server is asked directly.)
    await expect(
      legacy.request(
        { method: "tools/call", params: { name: "request_approval", arguments: approvalArgs() } },
        CallToolResultSchema,
      ),
    ).rejects.toMatchObject({ code: -32601, message: expect.stringContaining("runs only as a task") });
    const task = (
      await legacy.request(
        {
          method: "tools/call",
          params: { name: "request_approval", arguments: approvalArgs(), task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
      )
    ).task;
    await work();
    expect(await legacy.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "working" });
    const packet = await db.decisionPacket.findFirstOrThrow({ where: { runId: task.taskId } });
    await getRuntime().decidePacket({
      packetId: packet.id,
      reviewer: reviewerEmail,
      input: { decision: "reject", reason: "not this month" },
    });
    expect(await legacy.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "completed" });
    expect(await legacy.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).toMatchObject({
      structuredContent: { gateId: task.taskId, status: "rejected", reason: "not this month", approvedArgs: null },
    });
  });

  it("a four-eyes packet: each accepted answer retires its key; the same key again counts once; the next approver answers the next key", async () => {
    const runtime = getRuntime();
    const refundRule = demoAgents
      .find((a) => a.definition.slug === "refund-agent")!
      .defaultPermissions.find((p) => p.tool === "payments.refund")!;
    const current = (await runtime.permissions.list()).find(
      (r) => r.agent === "refund-agent" && r.tool === "payments.refund",
    )!;
    const raised = await runtime.permissions.put(
      { ...refundRule, approvals: 2 },
      { by: "test", expectedVersion: current.version },
    );
    try {
      const operatorClient = await connect(operator);
      const first = await connect(reviewer);
      const second = await connect(
        (await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide", "runs:read"] })).token,
      );
      const task = await startTask(operatorClient, { agent: "refund-agent", input: await refundInput() });
      await work();
      const packet = await db.decisionPacket.findFirstOrThrow({ where: { runId: task.taskId } });
      expect(packet.requiredApprovals).toBe(2);
      const approve = { action: "accept", content: { decision: "approve" } };
      expect(Object.keys((await getTask(first, task.taskId)).inputRequests!)).toEqual([`${packet.id}/0`]);
      await update(first, task.taskId, { [`${packet.id}/0`]: approve });
      await update(first, task.taskId, { [`${packet.id}/0`]: approve }); // a retry: ignored
      expect(await db.packetApproval.count({ where: { packetId: packet.id } })).toBe(1);
      const next = await getTask(second, task.taskId);
      expect(Object.keys(next.inputRequests!)).toEqual([`${packet.id}/1`]);
      expect(next.inputRequests![`${packet.id}/1`].params.message).toContain("Needs 2 different approvers (1 so far)");
      // The first approver cannot be the second.
      await expect(update(first, task.taskId, { [`${packet.id}/1`]: approve })).rejects.toMatchObject({
        code: -32600,
        message: expect.stringContaining("refused"),
      });
      await update(second, task.taskId, { [`${packet.id}/1`]: approve });
      expect(await db.decisionPacket.findUniqueOrThrow({ where: { id: packet.id } })).toMatchObject({
        status: "APPROVED",
      });
      await work();
      expect(await getTask(operatorClient, task.taskId)).toMatchObject({ status: "completed" });
    } finally {
      await runtime.permissions.put(refundRule, { by: "test", expectedVersion: raised.version });
    }
  });
});
