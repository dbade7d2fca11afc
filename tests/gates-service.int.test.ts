import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getGate, waitForGate } from "../lib/commands/request-gate";
import { createDb, type Db } from "../lib/db";
import { parseInboxFilters } from "../lib/inbox/queue";
import { startNotifications } from "../lib/notifications/dispatcher";
import { findInboxPage } from "../lib/queries/inbox-page";
import type { Worker } from "../lib/runtime";
import { getRuntime } from "../lib/runtime.server";
import { decodeWebhookSecret } from "../lib/webhooks/config";
import { checkWebhookSignature, readWebhookHeaders } from "../lib/webhooks/signature";
import { startRouteServer } from "./support/route-server";
import { expectError, providers, uid } from "./support/runtime";
import { createPersonWithToken } from "./support/tokens";
import { until } from "./support/until";

// The open gate as a service (docs/gates-api.md), over real HTTP against the app's route handlers,
// with a worker driving the gate runs: a caller asks, a second person decides through runtime.decidePacket
// (the console's path), the caller long-polls, reports what it did, and gets a signed callback.

const silent = { info() {}, warn() {}, error() {} };
const WAIT_MS = 30_000;

describe.each(providers())("open gates [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let worker: Worker;
  const people: Record<string, { email: string; token: string }> = {};

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    db = createDb(url);
    people.caller = await createPersonWithToken(db, { role: "operator", scopes: ["gates:request"] });
    people.reviewer = await createPersonWithToken(db, { role: "reviewer", scopes: ["runs:read"] });
    people.second = await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide"] });
    people.runner = await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read"] });
    server = await startRouteServer();
    worker = getRuntime().createWorker({ pollMs: 200 });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await server.close();
    await db.$disconnect();
  });

  const call = async (method: string, path: string, opts: { token?: string; body?: unknown } = {}) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    return { status: res.status, json: await res.json() };
  };

  const refund = (overrides: Record<string, unknown> = {}) => ({
    action: {
      tool: "payments.refund",
      args: { orderId: "ord_1", amount: 4200 },
      schema: {
        type: "object",
        properties: { orderId: { type: "string" }, amount: { type: "integer", minimum: 1 } },
        required: ["orderId", "amount"],
      },
    },
    description: "Refund the damaged order",
    evidence: [
      { key: "order", value: { id: "ord_1", total: 4200 }, source: "shop-db", at: "2026-01-01T00:00:00.000Z" },
    ],
    impact: "refunds $42.00 to the customer's card",
    uncertainty: "The customer's photo is blurry.",
    idempotencyKey: uid("key"),
    metadata: { ticket: "T-1" },
    ...overrides,
  });

  /** Requests a gate and waits for its packet to be open. */
  async function openGate(body: Record<string, unknown> = refund()) {
    const res = await call("POST", "/api/gates", { token: people.caller.token, body });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    let last: Record<string, unknown> = res.json;
    await until(
      `gate ${res.json.gateId} has its packet (last: ${JSON.stringify(last)})`,
      async () => {
        last = (await call("GET", `/api/gates/${res.json.gateId}`, { token: people.caller.token })).json;
        return typeof last.packetId === "string";
      },
      WAIT_MS,
    );
    return { created: res.json, gate: last as { gateId: string; packetId: string; digest: string; status: string } };
  }

  const decide = (packetId: string, reviewer: string, input: unknown) =>
    getRuntime().decidePacket({ packetId, reviewer, input });

  it("asks a person through the inbox; a second person approves; the caller reports it happened and the run completes with its receipt", async () => {
    const { created, gate } = await openGate();
    expect(created).toMatchObject({
      status: "pending",
      created: true,
      statusUrl: `/api/gates/${created.gateId}`,
      action: { tool: "payments.refund" },
      metadata: { ticket: "T-1" },
    });
    expect(created.callbackSecret).toBeUndefined();

    // The packet is an ordinary one: in the inbox read model, with the caller's description, evidence and impact.
    const inbox = await findInboxPage(db, {
      workspaceId: null,
      filters: parseInboxFilters({}),
      me: people.second.email,
      pageSize: 200,
    });
    expect(inbox.items.map((i) => i.id)).toContain(gate.packetId);
    const packet = (await getRuntime().store.getPacket(gate.packetId, null))!;
    expect(packet).toMatchObject({
      tool: "external:payments.refund",
      args: { orderId: "ord_1", amount: 4200 },
      queue: "default",
      requiredApprovals: 1,
    });
    expect(packet.content).toMatchObject({
      impact: "refunds $42.00 to the customer's card",
      reasoning: "Refund the damaged order",
      uncertainty: "The customer's photo is blurry.",
    });
    expect(packet.content.evidence).toEqual([
      expect.objectContaining({
        key: "order",
        kind: "observation",
        value: { id: "ord_1", total: 4200 },
        source: { by: "external:shop-db" },
        at: "2026-01-01T00:00:00.000Z",
      }),
    ]);

    // The outcome before a decision is refused; the requester may not approve their own gate.
    expect(
      await call("POST", `/api/gates/${gate.gateId}/outcome`, {
        token: people.caller.token,
        body: { status: "happened" },
      }),
    ).toMatchObject({ status: 409, json: { error: { code: "CONFLICT" } } });
    await expectError(decide(gate.packetId, people.caller.email, { decision: "approve" }), "FORBIDDEN");

    await decide(gate.packetId, people.second.email, { decision: "approve" });
    const decided = await call("GET", `/api/gates/${gate.gateId}`, { token: people.reviewer.token }); // runs:read may read it too
    expect(decided).toMatchObject({
      status: 200,
      json: {
        status: "approved",
        approvedArgs: { orderId: "ord_1", amount: 4200 },
        approvers: [people.second.email],
        decidedBy: people.second.email,
        digest: gate.digest,
        reason: null,
        outcome: null,
      },
    });

    // The run waits (parked) for the caller's report, then completes with it as the effect's receipt.
    await until(
      "the gate run waits for the caller's report",
      async () => (await getRuntime().store.getRun(gate.gateId))?.status === "WAITING_EVENT",
      WAIT_MS,
    );
    const report = { status: "happened", receipt: "re_123", detail: "refunded" };
    const reported = await call("POST", `/api/gates/${gate.gateId}/outcome`, {
      token: people.caller.token,
      body: report,
    });
    expect(reported).toMatchObject({
      status: 200,
      json: {
        status: "approved",
        outcome: { status: "happened", receipt: "re_123", detail: "refunded", reportedAt: expect.any(String) },
      },
    });
    expect(
      (await call("POST", `/api/gates/${gate.gateId}/outcome`, { token: people.caller.token, body: report })).status,
    ).toBe(200); // the same report again
    expect(
      await call("POST", `/api/gates/${gate.gateId}/outcome`, {
        token: people.caller.token,
        body: { status: "failed" },
      }),
    ).toMatchObject({ status: 409 });

    await until(
      "the gate run completes",
      async () => (await getRuntime().store.getRun(gate.gateId))?.status === "COMPLETED",
      WAIT_MS,
    );
    const recovery = await getRuntime().recoveryView(gate.gateId);
    expect(recovery.definitelyHappened).toEqual([
      expect.objectContaining({
        tool: "external:payments.refund",
        args: { orderId: "ord_1", amount: 4200 },
        result: expect.objectContaining({ status: "happened", receipt: "re_123" }),
      }),
    ]);
    expect(recovery.mayHaveHappened).toEqual([]);
    const run = await getRuntime().getRun(gate.gateId);
    expect(run.startedBy).toBe(people.caller.email);
    expect(run.state.facts).toContainEqual(
      expect.objectContaining({ kind: "receipt", source: expect.objectContaining({ receiptId: "re_123" }) }),
    );
  });

  it("an edit is validated against the caller's schema and re-digested; the gate answers the edited args", async () => {
    const { gate } = await openGate();
    await expectError(
      decide(gate.packetId, people.second.email, { decision: "edit", args: { orderId: "ord_1", amount: "lots" } }),
      "INVALID_INPUT",
    );
    await decide(gate.packetId, people.second.email, { decision: "edit", args: { orderId: "ord_1", amount: 1000 } });
    const { json } = await call("GET", `/api/gates/${gate.gateId}`, { token: people.caller.token });
    expect(json).toMatchObject({
      status: "edited",
      approvedArgs: { orderId: "ord_1", amount: 1000 },
      action: { args: { orderId: "ord_1", amount: 4200 } },
    });
    expect(json.digest).not.toBe(gate.digest);
    expect(
      (
        await call("POST", `/api/gates/${gate.gateId}/outcome`, {
          token: people.caller.token,
          body: { status: "not_done", detail: "customer withdrew" },
        })
      ).status,
    ).toBe(200);
    await until(
      "the gate run completes",
      async () => (await getRuntime().store.getRun(gate.gateId))?.status === "COMPLETED",
      WAIT_MS,
    );
    expect((await getRuntime().recoveryView(gate.gateId)).definitelyNotHappened).toEqual([
      expect.objectContaining({ args: { orderId: "ord_1", amount: 1000 } }),
    ]);
  });

  it("a rejection and a redirect end the gate run with the reason; no outcome is taken", async () => {
    const rejected = (await openGate()).gate;
    await decide(rejected.packetId, people.second.email, { decision: "reject", reason: "not covered by the policy" });
    const redirected = (await openGate()).gate;
    await decide(redirected.packetId, people.second.email, {
      decision: "redirect",
      instruction: "offer a voucher instead",
    });
    expect((await call("GET", `/api/gates/${rejected.gateId}`, { token: people.caller.token })).json).toMatchObject({
      status: "rejected",
      reason: "not covered by the policy",
      approvedArgs: null,
      decidedBy: people.second.email,
    });
    expect((await call("GET", `/api/gates/${redirected.gateId}`, { token: people.caller.token })).json).toMatchObject({
      status: "redirected",
      reason: "offer a voucher instead",
      approvedArgs: null,
    });
    for (const gate of [rejected, redirected]) {
      await until(
        `gate run ${gate.gateId} completes`,
        async () => (await getRuntime().store.getRun(gate.gateId))?.status === "COMPLETED",
        WAIT_MS,
      );
      expect(
        (
          await call("POST", `/api/gates/${gate.gateId}/outcome`, {
            token: people.caller.token,
            body: { status: "happened" },
          })
        ).status,
      ).toBe(409);
    }
  });

  it("a permission rule that denies the tool to gates ends the gate rejected, with no packet", async () => {
    const tool = uid("closed.tool");
    await getRuntime().permissions.put(
      { agent: "external-gate", tool: `external:${tool}`, effect: "deny" },
      { by: "admin@test" },
    );
    const res = await call("POST", "/api/gates", {
      token: people.caller.token,
      body: refund({ action: { tool, args: { x: 1 } } }),
    });
    expect(res.status).toBe(201);
    let last: Record<string, unknown> = {};
    await until(
      `the closed gate is rejected (last: ${JSON.stringify(last)})`,
      async () => {
        last = (await call("GET", `/api/gates/${res.json.gateId}`, { token: people.caller.token })).json;
        return last.status !== "pending";
      },
      WAIT_MS,
    );
    expect(last).toMatchObject({ status: "rejected", packetId: null, reason: expect.stringContaining("deny") });
  });

  it("a gate run an operator cancels answers rejected, and a waiting client is not left waiting", async () => {
    const { gate } = await openGate();
    await getRuntime().cancelRun({ runId: gate.gateId, by: people.runner.email, reason: "test" });
    const { json } = await call("GET", `/api/gates/${gate.gateId}?wait=20`, { token: people.caller.token });
    expect(json).toMatchObject({ status: "rejected", reason: "the gate run was cancelled", approvedArgs: null });
  });

  /** Resolves once a long-poll on the gate sleeps: it listens for wake-ups and its first read of the gate is done
   *  (a decision made before then would be read, not woken for). */
  async function watchLongPoll(gateId: string) {
    const store = getRuntime().store;
    const listens = vi.spyOn(store, "onRunnable");
    const reads = vi.spyOn(store, "listSignals");
    try {
      await until(
        "the long-poll listens and has read the gate once",
        () =>
          listens.mock.calls.length > 0 &&
          reads.mock.calls.some(([runId], i) => runId === gateId && reads.mock.settledResults[i]?.type === "fulfilled"),
      );
    } finally {
      listens.mockRestore();
      reads.mockRestore();
    }
  }

  it("?wait returns as soon as the gate is decided, woken rather than at the end of its wait", async () => {
    const { gate } = await openGate();
    const started = Date.now();
    const asleep = watchLongPoll(gate.gateId);
    const waiting = call("GET", `/api/gates/${gate.gateId}?wait=30`, { token: people.caller.token }).then((res) => ({
      ...res,
      at: Date.now(),
    }));
    await asleep; // the long-poll is under way
    const decidedAt = Date.now();
    await decide(gate.packetId, people.second.email, { decision: "approve" });
    const answer = await waiting;
    expect(answer.json.status).toBe("approved");
    expect(answer.at - decidedAt).toBeLessThan(5_000);
    expect(answer.at - started).toBeLessThan(25_000);
    // Undecided, it answers "pending" once the wait is over.
    const other = (await openGate()).gate;
    const before = Date.now();
    expect((await call("GET", `/api/gates/${other.gateId}?wait=1`, { token: people.caller.token })).json.status).toBe(
      "pending",
    );
    expect(Date.now() - before).toBeGreaterThanOrEqual(900);
  });

  it("the long-poll is woken by the decision itself, not by its fallback re-read", async () => {
    const { gate } = await openGate();
    // A fallback re-read a minute away: only the store's wake-up can answer within the test's bound.
    const asleep = watchLongPoll(gate.gateId);
    const waiting = waitForGate({ runtime: getRuntime() }, gate.gateId, { waitSeconds: 55, recheckMs: 60_000 }).then(
      (view) => ({ view, at: Date.now() }),
    );
    await asleep;
    await decide(gate.packetId, people.second.email, { decision: "approve" });
    const decidedAt = Date.now();
    const answer = await waiting;
    expect(answer.view.status).toBe("approved");
    expect(answer.at - decidedAt).toBeLessThan(10_000);
  }, 60_000);

  it("four eyes: a gate that asks for two approvers stays pending after the first", async () => {
    const third = await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide"] });
    const { gate } = await openGate(refund({ approvals: 2 }));
    await decide(gate.packetId, people.second.email, { decision: "approve" });
    expect((await call("GET", `/api/gates/${gate.gateId}`, { token: people.caller.token })).json).toMatchObject({
      status: "pending",
      approvedArgs: null,
    });
    await expectError(decide(gate.packetId, people.second.email, { decision: "approve" }), "CONFLICT"); // the same person twice is one approval
    await decide(gate.packetId, third.email, { decision: "approve" });
    const { json } = await call("GET", `/api/gates/${gate.gateId}`, { token: people.caller.token });
    expect(json).toMatchObject({ status: "approved", decidedBy: third.email });
    expect([...json.approvers].sort()).toEqual([people.second.email, third.email].sort());
  });

  it("the same idempotency key returns the same gate; a different body under it is a conflict", async () => {
    const body = refund();
    const first = await call("POST", "/api/gates", { token: people.caller.token, body });
    const again = await call("POST", "/api/gates", { token: people.caller.token, body });
    expect(first.status).toBe(201);
    expect(again).toMatchObject({ status: 200, json: { gateId: first.json.gateId, created: false } });
    const other = await call("POST", "/api/gates", {
      token: people.caller.token,
      body: { ...body, action: { ...body.action, args: { orderId: "ord_1", amount: 9999 } } },
    });
    expect(other).toMatchObject({ status: 409, json: { error: { code: "CONFLICT" } } });
  });

  it("bad input is a 400 naming the field, and writes nothing", async () => {
    const before = await db.run.count();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ ...refund(), idempotencyKey: undefined }, "idempotencyKey"],
      [
        refund({
          action: { tool: "payments.refund", args: { orderId: "ord_1", amount: -5 }, schema: refund().action.schema },
        }),
        "action.args.amount",
      ],
      [refund({ action: { tool: "payments.refund", args: {}, schema: { type: "string" } } }), "action.schema"],
      [refund({ queue: "no-such-queue" }), "queue"],
      [refund({ onExpiry: "shrug" }), "onExpiry"],
      [refund({ onExpiry: "escalate:nowhere-at-all@2h" }), "onExpiry"],
      [refund({ expiresIn: "2 weeks" }), "expiresIn"],
      [refund({ approvals: 9 }), "approvals"],
      [refund({ callbackUrl: "ftp://example.com/x" }), "callbackUrl"],
      [refund({ metadata: { blob: "x".repeat(9000) } }), "metadata"],
    ];
    for (const [body, field] of bad) {
      const res = await call("POST", "/api/gates", { token: people.caller.token, body });
      expect(res.status, `${field}: ${JSON.stringify(res.json)}`).toBe(400);
      expect(Object.keys(res.json.error.fieldErrors ?? {}), field).toContain(field);
    }
    expect(await db.run.count()).toBe(before);
  });

  it("a token without gates:request gets 403; the gate agent is not started by hand; an unknown gate is 404", async () => {
    expect(await call("POST", "/api/gates", { token: people.reviewer.token, body: refund() })).toMatchObject({
      status: 403,
      json: { error: { code: "FORBIDDEN" } },
    });
    expect((await call("GET", "/api/gates/run_nope", { token: people.second.token })).status).toBe(403);
    expect((await call("GET", "/api/gates/run_nope", { token: people.caller.token })).status).toBe(404);
    expect(
      (
        await call("POST", "/api/runs", {
          token: people.runner.token,
          body: { agent: "external-gate", input: refund() },
        })
      ).status,
    ).toBe(400);
    const agents = await call("GET", "/api/agents", { token: people.reviewer.token });
    expect(agents.json.agents.map((a: { slug: string }) => a.slug)).not.toContain("external-gate");
  });

  describe("expiry", () => {
    it("rejects by default when the deadline passes", async () => {
      const { gate } = await openGate(refund({ expiresIn: 1 }));
      await until(
        "the gate expires",
        async () => (await getGate({ runtime: getRuntime() }, gate.gateId)).status === "expired",
        WAIT_MS,
      );
      const view = await getGate({ runtime: getRuntime() }, gate.gateId);
      expect(view).toMatchObject({
        status: "expired",
        approvedArgs: null,
        reason: expect.stringContaining("rejected by its expiry policy"),
      });
    });

    it("approves on expiry only when the gate says so, recorded as decided by system:expiry", async () => {
      const { gate } = await openGate(refund({ expiresIn: "1s", onExpiry: "approve" }));
      await until(
        "the gate is approved by its expiry",
        async () => (await getGate({ runtime: getRuntime() }, gate.gateId)).status === "approved",
        WAIT_MS,
      );
      expect(await getGate({ runtime: getRuntime() }, gate.gateId)).toMatchObject({
        decidedBy: "system:expiry",
        approvedArgs: { orderId: "ord_1", amount: 4200 },
        reason: expect.stringContaining("approved by its expiry policy"),
      });
      const packet = (await getRuntime().store.getPacket(gate.packetId, null))!;
      expect(packet).toMatchObject({
        status: "APPROVED",
        decidedBy: "system:expiry",
        decision: { decision: "approve", digest: packet.digest },
      });
      await until(
        "the approved gate run waits for the caller",
        async () => (await getRuntime().store.getRun(gate.gateId))?.status === "WAITING_EVENT",
        WAIT_MS,
      );
    });

    it("escalates along a chain, each step with its own deadline, then rejects", async () => {
      const [leads, cfo] = [uid("leads"), uid("cfo")];
      for (const name of [leads, cfo])
        await db.decisionQueue.create({ data: { name, roles: "[]", people: "[]", updatedBy: "test" } });
      // cfo has no deadline of its own: it gets the packet's first window (2 s), written out once it escalates.
      const { gate } = await openGate(refund({ expiresIn: 2, onExpiry: `escalate:${leads}@1s,${cfo}` }));
      const onExpireByQueue = new Map<string, string>();
      await until(
        "the packet is escalated to the last queue",
        async () => {
          const packet = await getRuntime().store.getPacket(gate.packetId, null);
          if (packet?.status === "PENDING") onExpireByQueue.set(packet.queue, packet.onExpire);
          return packet?.queue === cfo;
        },
        WAIT_MS,
      );
      expect(onExpireByQueue.get("default")).toBe(`escalate:${leads}@1s,${cfo}`);
      if (onExpireByQueue.has(leads)) expect(onExpireByQueue.get(leads)).toBe(`escalate:${cfo}@2s`); // seen unless the 1 s passed between two reads
      const escalated = (await getRuntime().store.getPacket(gate.packetId, null))!;
      expect(escalated).toMatchObject({ onExpire: "reject", content: { escalatedFrom: leads } });
      expect(escalated.expiresAt!.getTime() - escalated.createdAt.getTime()).toBeGreaterThanOrEqual(2_000);
      await until(
        "the gate expires at the end of the chain",
        async () => (await getGate({ runtime: getRuntime() }, gate.gateId)).status === "expired",
        WAIT_MS,
      );
      const events = await getRuntime().store.listEvents(gate.gateId);
      expect(events.filter((e) => e.type === "gate.escalated").map((e) => e.data.to)).toEqual([leads, cfo]);
    });
  });

  it("sends the decision to the callbackUrl, signed with the secret returned once", async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];
    const receiver = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const { port } = receiver.address() as AddressInfo;
    const notifications = startNotifications({
      db,
      logger: silent,
      intervalMs: 0,
      smtp: null,
      retry: { baseDelayMs: 0 },
      egress: { allowedHosts: [`127.0.0.1:${port}`] },
      gateView: (gateId) => getGate({ runtime: getRuntime() }, gateId),
    });
    try {
      const body = refund({ callbackUrl: `http://127.0.0.1:${port}/tether/gates` });
      const { created, gate } = await openGate(body);
      expect(created.callbackSecret).toMatch(/^whsec_/);
      expect(
        (await call("POST", "/api/gates", { token: people.caller.token, body })).json.callbackSecret,
      ).toBeUndefined(); // once
      await notifications.runOnce();
      expect(received).toHaveLength(0); // nothing before the decision
      await decide(gate.packetId, people.second.email, { decision: "approve" });
      await until(
        `the callback arrives (received ${received.length})`,
        async () => (await notifications.runOnce(), received.length > 0),
        WAIT_MS,
      );
      const [delivery] = received;
      const headers = new Headers(Object.entries(delivery.headers).map(([k, v]): [string, string] => [k, String(v)]));
      expect(() =>
        checkWebhookSignature(readWebhookHeaders(headers), delivery.body, [
          decodeWebhookSecret(created.callbackSecret)!,
        ]),
      ).not.toThrow();
      expect(() =>
        checkWebhookSignature(readWebhookHeaders(headers), delivery.body, [
          decodeWebhookSecret(`whsec_${Buffer.alloc(32, 7).toString("base64")}`)!,
        ]),
      ).toThrow();
      expect(JSON.parse(delivery.body.toString())).toMatchObject({
        gateId: gate.gateId,
        status: "approved",
        approvedArgs: { orderId: "ord_1", amount: 4200 },
      });
      await notifications.runOnce();
      expect(received).toHaveLength(1); // one delivery per gate
      const row = await db.notificationDelivery.findFirst({ where: { runId: gate.gateId } });
      expect(row).toMatchObject({ status: "delivered", event: "gate.decided", attempts: 1 });
    } finally {
      await notifications.stop();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
