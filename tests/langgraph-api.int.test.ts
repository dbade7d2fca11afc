import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoAgents } from "../lib/agents";
import { createDb, type Db } from "../lib/db";
import type { Worker } from "../lib/runtime";
import { getRuntime } from "../lib/runtime.server";
import { seedSandbox } from "../lib/sandbox/seed";
import { startRouteServer } from "./support/route-server";
import { providers } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";
import { createPersonWithToken } from "./support/tokens";
import { until } from "./support/until";

// The Agent Inbox's side of Tether (app/api/langgraph, lib/langgraph), driven by @langchain/langgraph-sdk's
// own Client over real HTTP (the route server), with a worker running the runs as the console's does.
// A thread is a refund run; its interrupt is the refund's approval packet; a resume decides the packet.

type AnyJson = any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.each(providers())("LangGraph Agent Protocol for the Agent Inbox [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let worker: Worker;
  let operatorToken: string; // starts runs
  let reviewerToken: string; // decides (runs:read + packets:decide)
  let reviewerEmail: string;
  let readerToken: string; // runs:read only
  let selfReviewerToken: string; // starts runs and may decide packets: but never approve their own
  let reviewer: Client;

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
    operatorToken = (await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read"] })).token;
    const rev = await createPersonWithToken(db, { role: "reviewer", scopes: ["runs:read", "packets:decide"] });
    reviewerToken = rev.token;
    reviewerEmail = rev.email;
    readerToken = (await createPersonWithToken(db, { role: "reviewer", scopes: ["runs:read"] })).token;
    selfReviewerToken = (
      await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read", "packets:decide"] })
    ).token;
    reviewer = client(reviewerToken);
    // The console's embedded worker, as in production: a resume is continued by it, not by the request.
    worker = runtime.createWorker({ pollMs: 50 });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop({ graceMs: 5_000 });
    delete process.env.TETHER_SANDBOX;
    await server.close();
    await db.$disconnect();
  });

  const apiUrl = () => `${server.url}/api/langgraph`;
  const client = (apiKey: string) => new Client({ apiUrl: apiUrl(), apiKey, callerOptions: { maxRetries: 0 } });

  /** A refund run started over the HTTP API; 24000 cents needs a person's approval, 2000 does not. */
  async function startRefund(opts: { token?: string; amountCents?: number } = {}): Promise<string> {
    const order = await createSandboxOrder(db, { amountCents: opts.amountCents ?? 24_000 });
    const res = await fetch(`${server.url}/api/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${opts.token ?? operatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({ agent: "refund-agent", input: { orderId: order.id } }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  async function untilThread(threadId: string, status: string, as: Client = reviewer) {
    let last = "";
    await until(
      `thread ${threadId} is ${status}`,
      async () => (last = (await as.threads.get(threadId)).status) === status,
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; it was last ${last}`);
    });
  }

  async function interruptedRefund(opts: { token?: string; amountCents?: number } = {}) {
    const threadId = await startRefund(opts);
    await untilThread(threadId, "interrupted");
    const packet = await db.decisionPacket.findFirstOrThrow({ where: { runId: threadId, status: "PENDING" } });
    const order = (await db.run.findUniqueOrThrow({ where: { id: threadId } })).input;
    return { threadId, packetId: packet.id, orderId: (JSON.parse(order) as { orderId: string }).orderId };
  }

  const packetRow = (id: string) => db.decisionPacket.findUniqueOrThrow({ where: { id } });
  const decisionOf = async (id: string) => JSON.parse((await packetRow(id)).decision ?? "null") as AnyJson;

  it("GET /info is public; reads take the token as x-api-key or Bearer; no token is 401, a reader cannot resume (403)", async () => {
    const info = await fetch(`${apiUrl()}/info`);
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ flags: { assistants: false }, host: { kind: "tether" } });

    const { threadId } = await interruptedRefund();
    const bearer = await fetch(`${apiUrl()}/threads/${threadId}`, {
      headers: { authorization: `Bearer ${readerToken}` },
    });
    expect(bearer.status).toBe(200);
    expect(await bearer.json()).toMatchObject({ thread_id: threadId, status: "interrupted" });
    expect((await client(readerToken).threads.get(threadId)).thread_id).toBe(threadId);

    const anonymous = await fetch(`${apiUrl()}/threads/${threadId}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({
      detail: expect.stringContaining("API token"),
      error: { code: "UNAUTHENTICATED" },
    });
    await expect(client("tth_not_a_token").threads.get(threadId)).rejects.toMatchObject({ status: 401 });
    await expect(
      client(readerToken).runs.wait(threadId, "refund-agent", {
        command: { resume: [{ type: "accept", args: null }] },
      }),
    ).rejects.toMatchObject({ status: 403, message: expect.stringContaining("packets:decide") });
    await expect(client(reviewerToken).threads.get("run_does_not_exist")).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining("not found"),
    });
  });

  it("CORS for the Agent Inbox's origin only (TETHER_LANGGRAPH_CORS_ORIGINS): preflight without a token, answers with the origin", async () => {
    const { threadId } = await interruptedRefund();
    const preflight = (origin: string) =>
      fetch(`${apiUrl()}/threads/${threadId}/runs/stream`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "x-api-key, content-type",
        },
      });
    expect((await preflight("https://inbox.example")).headers.get("access-control-allow-origin")).toBeNull(); // unset: same origin only
    process.env.TETHER_LANGGRAPH_CORS_ORIGINS = "https://other.example, https://inbox.example/";
    try {
      const allowed = await preflight("https://inbox.example");
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://inbox.example");
      expect(allowed.headers.get("access-control-allow-headers")).toContain("x-api-key");
      expect(allowed.headers.get("access-control-allow-credentials")).toBeNull();
      const refused = await preflight("https://evil.example");
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
      expect(refused.headers.get("access-control-allow-methods")).toBeNull();

      const read = await fetch(`${apiUrl()}/threads/${threadId}`, {
        headers: { origin: "https://inbox.example", "x-api-key": readerToken },
      });
      expect(read.status).toBe(200);
      expect(read.headers.get("access-control-allow-origin")).toBe("https://inbox.example");
      const denied = await fetch(`${apiUrl()}/threads/${threadId}`, { headers: { origin: "https://inbox.example" } });
      expect(denied.status).toBe(401); // the error reaches the page too, so it can say why
      expect(denied.headers.get("access-control-allow-origin")).toBe("https://inbox.example");
    } finally {
      delete process.env.TETHER_LANGGRAPH_CORS_ORIGINS;
    }
  });

  it("threads.search lists interrupted threads, filtered by status and graph_id, and pages with offset and limit", async () => {
    const waiting = [await interruptedRefund(), await interruptedRefund(), await interruptedRefund()].map(
      (t) => t.threadId,
    );
    const small = await startRefund({ amountCents: 2_000 });
    await untilThread(small, "idle");
    const ids = [...waiting, small];

    const interrupted = await reviewer.threads.search({
      ids,
      status: "interrupted",
      metadata: { graph_id: "refund-agent" },
      limit: 100,
    });
    expect(interrupted.map((t) => t.thread_id).sort()).toEqual([...waiting].sort());
    for (const thread of interrupted) {
      expect(thread).toMatchObject({
        status: "interrupted",
        metadata: { graph_id: "refund-agent" },
        values: { status: "WAITING_APPROVAL" },
      });
      expect(Object.values(thread.interrupts).flat()).toHaveLength(1);
    }
    expect((await reviewer.threads.search({ ids, status: "idle" })).map((t) => t.thread_id)).toEqual([small]);
    expect(await reviewer.threads.search({ ids, metadata: { graph_id: "deploy-agent" } })).toEqual([]);
    // The Agent Inbox's default: every interrupted thread of the graph, newest first.
    const all = await reviewer.threads.search({
      status: "interrupted",
      metadata: { graph_id: "refund-agent" },
      limit: 100,
    });
    expect(all.map((t) => t.thread_id)).toEqual(expect.arrayContaining(waiting));
    expect(all.every((t) => t.status === "interrupted")).toBe(true);

    const first = await reviewer.threads.search({
      ids: waiting,
      status: "interrupted",
      limit: 2,
      offset: 0,
      sortBy: "created_at",
      sortOrder: "asc",
    });
    const second = await reviewer.threads.search({
      ids: waiting,
      status: "interrupted",
      limit: 2,
      offset: 2,
      sortBy: "created_at",
      sortOrder: "asc",
    });
    expect(first).toHaveLength(2);
    expect(second).toHaveLength(1);
    expect([...first, ...second].map((t) => t.thread_id)).toEqual(waiting); // started in this order

    await expect(reviewer.threads.search({ limit: 101 })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("limit"),
    });
    await expect(reviewer.threads.search({ metadata: { owner: "x" } })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("graph_id"),
    });
    await expect(reviewer.threads.search({ status: "paused" as never })).rejects.toMatchObject({ status: 400 });
  });

  it("threads.get and threads.getState show the pending packet as a HumanInterrupt", async () => {
    const { threadId, packetId, orderId } = await interruptedRefund();
    const thread = await reviewer.threads.get(threadId);
    expect(thread).toMatchObject({
      thread_id: threadId,
      status: "interrupted",
      metadata: { graph_id: "refund-agent", assistant_id: "refund-agent" },
    });
    const [interrupt] = thread.interrupts[packetId] as AnyJson[];
    const args = { orderId, amountCents: 24_000, cardLast4: "4242", currency: "usd" };
    expect(interrupt).toMatchObject({
      id: packetId,
      value: {
        action_request: { action: "payments.refund", args, arguments: args },
        config: { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true },
      },
    });
    const description = interrupt.value.description as string;
    expect(description).toContain("**Impact:** refunds $240.00 to card •4242");
    expect(description).toMatch(/\*\*Uncertainty:\*\* \w+/);
    expect(description).toMatch(/\*\*Evidence:\*\*\n- `order` \(observation/);
    expect(description).toContain("**Why a person is asked:**");
    expect(description).toContain("`amountCents`, `currency`"); // what the tool lets a reviewer edit

    const state = await reviewer.threads.getState(threadId);
    expect(state).toMatchObject({
      next: ["payments.refund"],
      values: { run_id: threadId, status: "WAITING_APPROVAL", agent: "refund-agent" },
      checkpoint: { thread_id: threadId },
    });
    expect(state.tasks).toHaveLength(1);
    expect(state.tasks[0]).toMatchObject({
      id: packetId,
      name: "payments.refund",
      interrupts: [{ id: packetId, value: { action_request: { action: "payments.refund" } } }],
    });
  });

  it("runs.wait with accept approves the packet as the reviewer; the run completes and the refund happens", async () => {
    const { threadId, packetId } = await interruptedRefund();
    const values = (await reviewer.runs.wait(threadId, "refund-agent", {
      command: { resume: [{ type: "accept", args: null }] },
    })) as AnyJson;
    expect(values).toMatchObject({
      run_id: threadId,
      status: "COMPLETED",
      output: { refunded: true, amountCents: 24_000 },
    });
    expect(values.__interrupt__).toBeUndefined();
    expect(await packetRow(packetId)).toMatchObject({ status: "APPROVED", decidedBy: reviewerEmail });
    expect((await reviewer.threads.get(threadId)).status).toBe("idle");
  });

  it("runs.wait with edit: the strings the Agent Inbox sends are read against the tool's schema, and the edited refund runs", async () => {
    const { threadId, packetId, orderId } = await interruptedRefund();
    const edited = {
      action: "payments.refund",
      args: { orderId, amountCents: "15000", cardLast4: "4242", currency: "usd" },
    };
    const values = (await reviewer.runs.wait(threadId, "refund-agent", {
      command: { resume: [{ type: "edit", args: edited }] },
    })) as AnyJson;
    expect(values).toMatchObject({ status: "COMPLETED", output: { refunded: true, amountCents: 15_000 } });
    expect(await packetRow(packetId)).toMatchObject({ status: "EDITED", decidedBy: reviewerEmail });
    expect((await decisionOf(packetId)).args).toEqual({
      orderId,
      amountCents: 15_000,
      cardLast4: "4242",
      currency: "usd",
    });
  });

  it("runs.wait with response rejects with the text as the reason; the agent stops and says why", async () => {
    const { threadId, packetId } = await interruptedRefund();
    const values = (await reviewer.runs.wait(threadId, "refund-agent", {
      command: { resume: [{ type: "response", args: "Policy: over $200 needs a manager." }] },
    })) as AnyJson;
    expect(values).toMatchObject({
      status: "COMPLETED",
      output: { refunded: false, reason: expect.stringContaining("over $200 needs a manager") },
    });
    expect(await packetRow(packetId)).toMatchObject({ status: "REJECTED" });
    expect(await decisionOf(packetId)).toMatchObject({
      decision: "reject",
      reason: "Policy: over $200 needs a manager.",
    });
  });

  it("runs.create with ignore redirects the agent away from the action; the Run names the decided packet", async () => {
    const { threadId, packetId } = await interruptedRefund();
    const run = await reviewer.runs.create(threadId, "refund-agent", {
      command: { resume: [{ type: "ignore", args: null }] },
    });
    expect(run).toMatchObject({
      run_id: packetId,
      thread_id: threadId,
      assistant_id: "refund-agent",
      status: "pending",
      metadata: { decided: [{ packet_id: packetId, status: "REDIRECTED" }] },
    });
    await untilThread(threadId, "idle");
    expect(await decisionOf(packetId)).toMatchObject({
      decision: "redirect",
      instruction: expect.stringContaining("do not perform payments.refund"),
    });
    expect((await reviewer.threads.get(threadId)).values).toMatchObject({ output: { refunded: false } });
  });

  it("LangChain's HITL middleware shape {decisions: [...]} and a resume keyed by interrupt id", async () => {
    const approved = await interruptedRefund();
    const values = (await reviewer.runs.wait(approved.threadId, "refund-agent", {
      command: { resume: { decisions: [{ type: "approve" }] } },
    })) as AnyJson;
    expect(values).toMatchObject({ status: "COMPLETED", output: { refunded: true } });
    expect(await packetRow(approved.packetId)).toMatchObject({ status: "APPROVED" });

    const edited = await interruptedRefund();
    const editedAction = {
      name: "payments.refund",
      args: { orderId: edited.orderId, amountCents: 9_000, cardLast4: "4242", currency: "usd" },
    };
    expect(
      await reviewer.runs.wait(edited.threadId, "refund-agent", {
        command: { resume: { decisions: [{ type: "edit", edited_action: editedAction }] } },
      }),
    ).toMatchObject({ output: { amountCents: 9_000 } });

    const rejected = await interruptedRefund();
    const keyed = { [rejected.packetId]: { decisions: [{ type: "reject", message: "Duplicate request." }] } };
    expect(await reviewer.runs.wait(rejected.threadId, "refund-agent", { command: { resume: keyed } })).toMatchObject({
      output: { refunded: false },
    });
    expect(await decisionOf(rejected.packetId)).toMatchObject({ decision: "reject", reason: "Duplicate request." });

    const byId = await interruptedRefund();
    await reviewer.runs.wait(byId.threadId, "refund-agent", {
      command: { resume: { [byId.packetId]: { type: "accept", args: null } } },
    });
    expect(await packetRow(byId.packetId)).toMatchObject({ status: "APPROVED" });
  });

  it("runs.stream answers SSE the SDK parses: metadata, the run's trace as updates and events, and the final values", async () => {
    const { threadId, packetId } = await interruptedRefund();
    const parts: Array<{ event: string; data: AnyJson }> = [];
    for await (const part of reviewer.runs.stream(threadId, "refund-agent", {
      command: { resume: [{ type: "accept", args: null }] },
      streamMode: ["values", "updates", "events"],
    })) {
      parts.push(part as { event: string; data: AnyJson });
    }
    expect(parts[0]).toMatchObject({ event: "metadata", data: { run_id: packetId, thread_id: threadId } });
    const nodes = parts.filter((p) => p.event === "events").map((p) => p.data.metadata.langgraph_node);
    expect(nodes).toEqual(expect.arrayContaining(["gate.decided", "run.completed"]));
    expect(parts.filter((p) => p.event === "events").every((p) => p.data.event === "on_chain_start")).toBe(true);
    expect(parts.some((p) => p.event === "updates" && p.data["gate.decided"]?.packetId === packetId)).toBe(true);
    expect(parts.at(-1)).toMatchObject({ event: "values", data: { status: "COMPLETED", output: { refunded: true } } });
    expect(parts.some((p) => p.event === "error")).toBe(false);
  });

  it("whoever started the run cannot approve it here either (403); nothing is decided", async () => {
    const { threadId, packetId } = await interruptedRefund({ token: selfReviewerToken });
    const self = client(selfReviewerToken);
    await expect(
      self.runs.wait(threadId, "refund-agent", { command: { resume: [{ type: "accept", args: null }] } }),
    ).rejects.toMatchObject({ status: 403, message: expect.stringContaining("cannot approve") });
    await expect(
      self.runs.wait(threadId, "refund-agent", {
        command: {
          resume: {
            decisions: [{ type: "edit", edited_action: { name: "payments.refund", args: { amountCents: 100 } } }],
          },
        },
      }),
    ).rejects.toMatchObject({ status: 403 });
    expect(await packetRow(packetId)).toMatchObject({ status: "PENDING", decidedBy: null });
    expect((await self.threads.get(threadId)).status).toBe("interrupted");
  });

  it("bad input is a 400 naming the field (or 404/409), and decides nothing", async () => {
    const { threadId, packetId, orderId } = await interruptedRefund();
    const other = await interruptedRefund();
    const resume = (value: unknown, extra: Record<string, unknown> = {}) =>
      fetch(`${apiUrl()}/threads/${threadId}/runs/wait`, {
        method: "POST",
        headers: { "x-api-key": reviewerToken, "content-type": "application/json" },
        body: JSON.stringify({
          assistant_id: "refund-agent",
          ...extra,
          ...(value === undefined ? {} : { command: { resume: value } }),
        }),
      });
    const expectRefused = async (value: unknown, status: number, field?: string, extra?: Record<string, unknown>) => {
      const res = await resume(value, extra);
      const body = (await res.json()) as AnyJson;
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(body.detail).toEqual(expect.any(String));
      if (field) expect(Object.keys(body.error.fieldErrors ?? {}), JSON.stringify(body)).toContain(field);
    };
    await expectRefused(undefined, 400, "command");
    await expectRefused([{ type: "maybe" }], 400, "command.resume.0.type");
    await expectRefused([], 400, "command.resume");
    await expectRefused({ decisions: [] }, 400, "command.resume.decisions");
    await expectRefused("yes", 400, "command.resume");
    await expectRefused(
      [
        {
          type: "edit",
          args: { action: "payments.refund", args: { orderId, amountCents: "lots", cardLast4: "4242" } },
        },
      ],
      400,
      "amountCents",
    );
    await expectRefused(
      [
        {
          type: "edit",
          args: { action: "payments.refund", args: { orderId: "ord_other", amountCents: 100, cardLast4: "4242" } },
        },
      ],
      400,
      "orderId",
    ); // not editable in review
    await expectRefused([{ type: "edit", args: { action: "mail.send", args: {} } }], 400, "command.resume");
    await expectRefused([{ type: "edit", args: "15000" }], 400, "command.resume.0.args");
    await expectRefused([{ type: "response", args: "" }], 400, "reason");
    await expectRefused([{ type: "accept" }, { type: "accept" }], 400, "command.resume");
    await expectRefused([{ type: "accept" }], 400, "assistant_id", { assistant_id: "deploy-agent" });
    await expectRefused([{ type: "accept" }], 400, "input", { input: { orderId } });
    await expectRefused({ pkt_unknown: { type: "accept" } }, 404);
    await expectRefused({ [other.packetId]: { type: "accept" } }, 404); // another thread's interrupt
    const notJson = await fetch(`${apiUrl()}/threads/${threadId}/runs`, {
      method: "POST",
      headers: { "x-api-key": reviewerToken, "content-type": "application/json" },
      body: "{not json",
    });
    expect(notJson.status).toBe(400);
    expect(await packetRow(packetId)).toMatchObject({ status: "PENDING", decidedBy: null, version: 0 });
    expect(await packetRow(other.packetId)).toMatchObject({ status: "PENDING", decidedBy: null });

    // Decided once; again → 409, by id (already decided) or by list (nothing pending).
    await reviewer.runs.wait(threadId, "refund-agent", { command: { resume: [{ type: "accept", args: null }] } });
    await expectRefused({ [packetId]: { type: "accept" } }, 409);
    await expectRefused([{ type: "response", args: "too late" }], 409);
    expect(await packetRow(packetId)).toMatchObject({ status: "APPROVED", decidedBy: reviewerEmail });
  });

  it("a packet two people must approve: no edit offered; the first accept records an approval and the thread stays interrupted", async () => {
    const rule = demoAgents
      .flatMap((agent) => agent.defaultPermissions)
      .find((p) => p.agent === "refund-agent" && p.tool === "payments.refund")!;
    const runtime = getRuntime();
    await runtime.permissions.put({ ...rule, approvals: 2 }, { by: "test" });
    try {
      const { threadId, packetId, orderId } = await interruptedRefund();
      const [interrupt] = (await reviewer.threads.get(threadId)).interrupts[packetId] as AnyJson[];
      expect(interrupt.value.config).toEqual({
        allow_accept: true,
        allow_edit: false,
        allow_respond: true,
        allow_ignore: true,
      });
      expect(interrupt.value.description).toContain("**Approvals:** 0 of 2 people");
      const edit = {
        type: "edit",
        args: { action: "payments.refund", args: { orderId, amountCents: 100, cardLast4: "4242", currency: "usd" } },
      };
      await expect(reviewer.runs.wait(threadId, "refund-agent", { command: { resume: [edit] } })).rejects.toMatchObject(
        { status: 400, message: expect.stringContaining("allow_edit") },
      );

      const first = (await reviewer.runs.wait(threadId, "refund-agent", {
        command: { resume: [{ type: "accept", args: null }] },
      })) as AnyJson;
      expect(first.__interrupt__).toEqual([expect.objectContaining({ id: packetId })]);
      expect(first.__interrupt__[0].value.description).toContain("**Approvals:** 1 of 2 people");
      expect(await packetRow(packetId)).toMatchObject({ status: "PENDING" });
      await expect(
        reviewer.runs.wait(threadId, "refund-agent", { command: { resume: [{ type: "accept", args: null }] } }),
      ).rejects.toMatchObject({ status: 409 });

      const second = client(
        (await createPersonWithToken(db, { role: "reviewer", scopes: ["runs:read", "packets:decide"] })).token,
      );
      expect(
        await second.runs.wait(threadId, "refund-agent", { command: { resume: [{ type: "accept", args: null }] } }),
      ).toMatchObject({ status: "COMPLETED", output: { refunded: true } });
      expect(await packetRow(packetId)).toMatchObject({ status: "APPROVED" });
    } finally {
      await runtime.permissions.put(rule, { by: "test" });
    }
  });

  it("threads.updateState(values: null, asNode: __end__) — the Agent Inbox's dismiss — redirects the pending interrupt; other writes are refused", async () => {
    const { threadId, packetId } = await interruptedRefund();
    await expect(reviewer.threads.updateState(threadId, { values: { amount: 1 } })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("state"),
    });
    await expect(
      client(readerToken).threads.updateState(threadId, { values: null, asNode: "__end__" }),
    ).rejects.toMatchObject({ status: 403 });
    expect(await packetRow(packetId)).toMatchObject({ status: "PENDING" });

    const answer = await reviewer.threads.updateState(threadId, { values: null, asNode: "__end__" });
    expect(answer).toMatchObject({ checkpoint: { thread_id: threadId } });
    expect(await packetRow(packetId)).toMatchObject({ status: "REDIRECTED", decidedBy: reviewerEmail });
    await untilThread(threadId, "idle");
    await expect(reviewer.threads.updateState(threadId, { values: null, asNode: "__end__" })).rejects.toMatchObject({
      status: 409,
    });
  });
});
