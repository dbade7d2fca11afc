import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { GET as agentCard } from "../app/.well-known/agent-card.json/route";
import { demoAgents } from "../lib/agents";
import { createDb, type Db } from "../lib/db";
import { getRuntime } from "../lib/runtime.server";
import { seedSandbox } from "../lib/sandbox/seed";
import { startRouteServer } from "./support/route-server";
import { providers, uid } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";
import { createPersonWithToken } from "./support/tokens";
import { until } from "./support/until";

// Tether as an A2A 1.0 agent, driven with plain JSON-RPC 2.0 over real HTTP (app/api/a2a/route.ts behind
// the route server): a refund run is a task that requires input (its decision packet), a second person
// answers on the task, and the task ends as the run does. The agent card is checked against the fields
// a2a.proto marks REQUIRED (a required list holds at least one element, §5.7).

const nonEmpty = (item: z.ZodType) => z.array(item).min(1);
const agentCardSchema = z.object({
  name: z.string().min(1),
  description: z.string().min(1),
  supportedInterfaces: nonEmpty(
    z.object({ url: z.string().url(), protocolBinding: z.string().min(1), protocolVersion: z.string().min(1) }),
  ),
  provider: z.object({ url: z.string().min(1), organization: z.string().min(1) }).optional(),
  version: z.string().min(1),
  capabilities: z.object({
    streaming: z.boolean().optional(),
    pushNotifications: z.boolean().optional(),
    extendedAgentCard: z.boolean().optional(),
  }),
  securitySchemes: z.record(
    z.string(),
    z.object({ httpAuthSecurityScheme: z.object({ scheme: z.string().min(1), bearerFormat: z.string().optional() }) }),
  ),
  securityRequirements: z.array(z.object({ schemes: z.record(z.string(), z.object({ list: z.array(z.string()) })) })),
  defaultInputModes: nonEmpty(z.string()),
  defaultOutputModes: nonEmpty(z.string()),
  skills: nonEmpty(
    z.object({
      id: z.string().min(1),
      name: z.string().min(1),
      description: z.string().min(1),
      tags: nonEmpty(z.string()),
      examples: z.array(z.string()).optional(),
    }),
  ),
});

type Rpc = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.each(providers())("A2A JSON-RPC binding [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let operator: string; // starts tasks
  let reviewer: string; // answers them (whoever started a task cannot approve it)
  let reader: string; // runs:read only
  let reviewerEmail: string;
  let operatorEmail: string;

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
  });
  afterAll(async () => {
    delete process.env.TETHER_SANDBOX;
    await server.close();
    await db.$disconnect();
  });

  const work = () => getRuntime().createWorker().drain();
  const post = async (token: string | null, body: string, headers: Record<string, string> = {}): Promise<Rpc> => {
    const response = await fetch(`${server.url}/api/a2a`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "a2a-version": "1.0",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body,
    });
    return { status: response.status, body: await response.json() };
  };
  const rpc = (token: string | null, method: string, params: unknown, id: string | number = uid("req")) =>
    post(token, JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  const refundOrder = async (amountCents = 24_000) => (await createSandboxOrder(db, { amountCents })).id;
  const startParams = async (opts: { messageId?: string; returnImmediately?: boolean; amountCents?: number } = {}) => ({
    message: {
      messageId: opts.messageId ?? randomUUID(),
      role: "ROLE_USER",
      parts: [
        { text: "Refund this order." },
        { data: { input: { orderId: await refundOrder(opts.amountCents) } }, mediaType: "application/json" },
      ],
      metadata: { skillId: "refund-agent" },
    },
    configuration: { returnImmediately: opts.returnImmediately ?? true },
  });
  const reply = (taskId: string, data: unknown, returnImmediately = true) => ({
    message: { messageId: randomUUID(), taskId, role: "ROLE_USER", parts: [{ data }] },
    configuration: { returnImmediately },
  });
  const getTask = async (taskId: string) => (await rpc(reader, "GetTask", { id: taskId })).body.result;
  /** A task started and driven until it waits for its decision. */
  const waitingTask = async () => {
    const started = await rpc(operator, "SendMessage", await startParams());
    expect(started.body.result.task.status.state).toBe("TASK_STATE_SUBMITTED");
    await work();
    const task = await getTask(started.body.result.task.id);
    expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    return task;
  };
  /** What the test's people wrote (other test files may share the database). */
  const counts = async () => ({
    runs: await db.run.count({ where: { startedBy: operatorEmail } }),
    packets: await db.decisionPacket.count({ where: { run: { startedBy: operatorEmail } } }),
    audit: await db.auditLog.count({ where: { actor: operatorEmail } }),
  });

  it("serves an agent card with every field the spec requires, its agents as skills and the bearer scheme", async () => {
    const response = await agentCard(new Request("http://tether.test/.well-known/agent-card.json"));
    expect(response.status).toBe(200);
    const card = await response.json();
    const parsed = agentCardSchema.safeParse(card);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(card.supportedInterfaces[0]).toEqual({
      url: "http://tether.test/api/a2a",
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    expect(card.capabilities).toEqual({ streaming: false, pushNotifications: false, extendedAgentCard: false });
    expect(card.securitySchemes.tetherToken.httpAuthSecurityScheme.scheme).toBe("Bearer");
    expect(card.securityRequirements).toEqual([{ schemes: { tetherToken: { list: [] } } }]);
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(
      expect.arrayContaining(demoAgents.map((a) => a.definition.slug)),
    );
    const refund = card.skills.find((s: { id: string }) => s.id === "refund-agent");
    expect(JSON.parse(refund.examples[0])).toMatchObject({ agent: "refund-agent", input: expect.any(Object) });
  });

  it("an exchange: SendMessage blocks until the task requires input (the packet as a DataPart); a second person approves; it completes with the run's output", async () => {
    const messageId = randomUUID();
    const params = await startParams({ messageId, returnImmediately: false });
    const sending = rpc(operator, "SendMessage", params, 7);
    // The blocking call returns once the run waits for its decision: drive the run meanwhile.
    await until(
      "the task's run exists",
      async () => (await db.run.count({ where: { idempotencyKey: { endsWith: messageId } } })) === 1,
    );
    await work();
    const sent = await sending;
    expect(sent).toMatchObject({ status: 200, body: { jsonrpc: "2.0", id: 7 } });
    const task = sent.body.result.task;
    expect(task).toMatchObject({
      id: expect.stringMatching(/^run_/),
      contextId: task.id,
      status: { state: "TASK_STATE_INPUT_REQUIRED", timestamp: expect.any(String) },
    });
    const message = task.status.message;
    expect(message).toMatchObject({
      role: "ROLE_AGENT",
      taskId: task.id,
      contextId: task.id,
      messageId: expect.any(String),
    });
    const packet = message.parts.find((p: { data?: unknown }) => p.data !== undefined).data;
    expect(packet).toMatchObject({
      packetId: expect.stringMatching(/^pkt_/),
      tool: expect.any(String),
      args: expect.any(Object),
      impact: expect.stringMatching(/refunds \$240\.00/),
      evidence: expect.any(Array),
      options: expect.arrayContaining(["approve", "edit", "reject", "redirect"]),
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(message.parts[0].text).toContain(packet.packetId);

    // The same message again is the same task (the message id is the run's idempotency key).
    const again = await rpc(operator, "SendMessage", { ...params, configuration: { returnImmediately: true } });
    expect(again.body.result.task.id).toBe(task.id);
    expect(await db.run.count({ where: { idempotencyKey: { endsWith: messageId } } })).toBe(1);

    // Separation of duties: the person who started the task cannot approve it; a token without packets:decide cannot answer.
    const own = await rpc(operator, "SendMessage", reply(task.id, { decision: "approve" }));
    expect(own.body.error).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/another reviewer/i),
      data: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "FORBIDDEN" }],
    });
    const unscoped = await rpc(reader, "SendMessage", reply(task.id, { decision: "approve" }));
    expect(unscoped).toMatchObject({
      status: 403,
      body: { error: { code: -32000, message: expect.stringContaining("packets:decide") } },
    });
    expect((await db.decisionPacket.findUniqueOrThrow({ where: { id: packet.packetId } })).status).toBe("PENDING");

    const approved = await rpc(
      reviewer,
      "SendMessage",
      reply(task.id, { decision: "approve", packetId: packet.packetId }),
    );
    expect(approved.body.result.task).toMatchObject({ id: task.id, status: { state: "TASK_STATE_WORKING" } });
    expect(await db.decisionPacket.findUniqueOrThrow({ where: { id: packet.packetId } })).toMatchObject({
      status: "APPROVED",
      decidedBy: reviewerEmail,
    });
    expect(await db.auditLog.findFirst({ where: { action: "packets.decide", target: packet.packetId } })).toMatchObject(
      { actor: reviewerEmail, data: expect.stringContaining("a2a:") },
    );

    await work();
    const done = await getTask(task.id);
    expect(done).toMatchObject({
      id: task.id,
      status: { state: "TASK_STATE_COMPLETED" },
      metadata: { tether: { runStatus: "COMPLETED", agent: "refund-agent" } },
    });
    const output = (await db.run.findUniqueOrThrow({ where: { id: task.id } })).state;
    expect(done.artifacts).toEqual([
      {
        artifactId: `${task.id}-output`,
        name: "output",
        description: expect.any(String),
        parts: [{ data: JSON.parse(output).output, mediaType: "application/json" }],
      },
    ]);
    expect(done.artifacts[0].parts[0].data).toBeTruthy();

    // An ended task takes no further messages, and cannot be canceled.
    expect((await rpc(reviewer, "SendMessage", reply(task.id, { decision: "approve" }))).body.error).toMatchObject({
      code: -32004,
    });
    expect((await rpc(operator, "CancelTask", { id: task.id })).body.error).toMatchObject({
      code: -32002,
      data: [{ reason: "TASK_NOT_CANCELABLE" }],
    });
  });

  it("a task started in a client's context keeps that context id", async () => {
    const contextId = `ctx-${randomUUID()}`;
    const params = await startParams();
    const started = await rpc(operator, "SendMessage", { ...params, message: { ...params.message, contextId } });
    expect(started.body.result.task.contextId).toBe(contextId);
    expect((await getTask(started.body.result.task.id)).contextId).toBe(contextId);
    await rpc(operator, "CancelTask", { id: started.body.result.task.id });
  });

  it("a rejection ends the task as TASK_STATE_REJECTED, with the reason; a reject without one is -32602 and decides nothing", async () => {
    const task = await waitingTask();
    const packetId = task.status.message.parts[1].data.packetId;
    const noReason = await rpc(reviewer, "SendMessage", reply(task.id, { decision: "reject" }));
    expect(noReason.body.error).toMatchObject({
      code: -32602,
      data: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "reason" }] }],
    });
    expect((await db.decisionPacket.findUniqueOrThrow({ where: { id: packetId } })).status).toBe("PENDING");

    const rejected = await rpc(
      reviewer,
      "SendMessage",
      reply(task.id, { decision: "reject", reason: "The customer already has store credit." }),
    );
    expect(rejected.body.result.task.status.state).toBe("TASK_STATE_WORKING");
    await work();
    const ended = await getTask(task.id);
    expect(ended.status.state).toBe("TASK_STATE_REJECTED");
    expect(ended.status.message.parts[0].text).toContain("The customer already has store credit.");
    expect((await db.decisionPacket.findUniqueOrThrow({ where: { id: packetId } })).status).toBe("REJECTED");
  });

  it("CancelTask cancels the run (audited as the API does), again answers the canceled task; GetTask of an unknown task is TaskNotFound", async () => {
    const started = await rpc(operator, "SendMessage", await startParams());
    const id = started.body.result.task.id;
    const canceled = await rpc(operator, "CancelTask", { id, metadata: { reason: "no longer needed" } });
    expect(canceled.body.result).toMatchObject({ id, status: { state: "TASK_STATE_CANCELED" } });
    expect((await rpc(operator, "CancelTask", { id })).body.result.status.state).toBe("TASK_STATE_CANCELED");
    expect(await db.run.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "CANCELLED" });
    const audit = await db.auditLog.findFirstOrThrow({ where: { action: "runs.cancel", target: id } });
    expect(JSON.parse(audit.data)).toMatchObject({ reason: "no longer needed", via: expect.stringMatching(/^a2a:/) });
    expect((await rpc(reader, "CancelTask", { id })).status).toBe(403);

    const unknown = await rpc(reader, "GetTask", { id: "run_does_not_exist" }, 2);
    expect(unknown.body).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: {
        code: -32001,
        message: "Task not found: run_does_not_exist",
        data: [
          expect.objectContaining({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND" }),
        ],
      },
    });
    expect((await rpc(operator, "CancelTask", { id: "run_does_not_exist" })).body.error.code).toBe(-32001);
    expect(
      (await rpc(reviewer, "SendMessage", reply("run_does_not_exist", { decision: "approve" }))).body.error.code,
    ).toBe(-32001);
  });

  it("malformed JSON-RPC and invalid params are refused with the spec's codes and write nothing", async () => {
    const before = await counts();
    const valid = await startParams();
    const cases: Array<[string, Promise<Rpc>, number]> = [
      ["not JSON", post(operator, "{ nope"), -32700],
      ["no jsonrpc member", post(operator, JSON.stringify({ id: 1, method: "SendMessage", params: valid })), -32600],
      [
        "jsonrpc 1.0",
        post(operator, JSON.stringify({ jsonrpc: "1.0", id: 1, method: "SendMessage", params: valid })),
        -32600,
      ],
      ["no id", post(operator, JSON.stringify({ jsonrpc: "2.0", method: "SendMessage", params: valid })), -32600],
      [
        "a batch",
        post(operator, JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "SendMessage", params: valid }])),
        -32600,
      ],
      ["an unknown method", rpc(operator, "message/send", valid), -32601],
      ["no message", rpc(operator, "SendMessage", {}), -32602],
      ["no parts", rpc(operator, "SendMessage", { message: { ...valid.message, parts: [] } }), -32602],
      ["the agent's role", rpc(operator, "SendMessage", { message: { ...valid.message, role: "ROLE_AGENT" } }), -32602],
      [
        "a part with two contents",
        rpc(operator, "SendMessage", { message: { ...valid.message, parts: [{ text: "x", data: {} }] } }),
        -32602,
      ],
      [
        "no DataPart",
        rpc(operator, "SendMessage", { message: { ...valid.message, parts: [{ text: "refund it" }] } }),
        -32602,
      ],
      ["no agent named", rpc(operator, "SendMessage", { message: { ...valid.message, metadata: {} } }), -32602],
      [
        "an unknown agent",
        rpc(operator, "SendMessage", { message: { ...valid.message, metadata: { skillId: "no-such-agent" } } }),
        -32602,
      ],
      [
        "an input the agent refuses",
        rpc(operator, "SendMessage", { message: { ...valid.message, parts: [{ data: { input: { orderId: 42 } } }] } }),
        -32602,
      ],
      [
        "a file part",
        rpc(operator, "SendMessage", { message: { ...valid.message, parts: [{ url: "https://example.com/a.pdf" }] } }),
        -32005,
      ],
      ["GetTask without id", rpc(reader, "GetTask", {}), -32602],
      ["streaming", rpc(operator, "SendStreamingMessage", valid), -32004],
      [
        "push notifications",
        rpc(operator, "CreateTaskPushNotificationConfig", { taskId: "x", url: "https://example.com" }),
        -32003,
      ],
      [
        "version 0.3 (no header)",
        post(operator, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: valid }), {
          "a2a-version": "",
        }),
        -32009,
      ],
    ];
    for (const [what, pending, code] of cases) {
      const { status, body } = await pending;
      expect({ what, code: body.error?.code, jsonrpc: body.jsonrpc }).toEqual({ what, code, jsonrpc: "2.0" });
      expect(body.result, what).toBeUndefined();
      expect(status, what).toBe(200);
    }
    const noParts = await rpc(operator, "SendMessage", { message: { ...valid.message, parts: [] } }, "np");
    expect(noParts.body).toMatchObject({
      id: "np",
      error: {
        data: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "message.parts" }] }],
      },
    });

    const anonymous = await rpc(null, "GetTask", { id: "x" });
    expect(anonymous).toMatchObject({
      status: 401,
      body: { error: { code: -32000, data: [{ reason: "UNAUTHENTICATED" }] } },
    });
    expect((await rpc(reader, "SendMessage", valid)).status).toBe(403);
    expect(await counts()).toEqual(before);
  });
});
