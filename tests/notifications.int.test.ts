import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolError, type AgentDefinition, type ToolDefinition } from "../lib/runtime";
import { createChannel } from "../lib/notifications/channels";
import { startNotifications, type NotificationsOptions } from "../lib/notifications/dispatcher";
import { getPacketView } from "../lib/queries/packets";
import { decodeWebhookSecret } from "../lib/webhooks/config";
import { checkWebhookSignature, checkWebhookTimestamp, readWebhookHeaders } from "../lib/webhooks/signature";
import { refundAgent, scriptedAgent } from "./support/agents";
import { createTestRuntime, grant, manualClock, providers, uid } from "./support/runtime";
import { startRouteServer } from "./support/route-server";
import { decodeQp, startSmtpSink } from "./support/smtp-sink";
import { createPersonWithToken } from "./support/tokens";
import { worldTools } from "./support/tools";
import { until } from "./support/until";
import { startWorld, type World } from "./support/world";

// A gate that waits needs someone told: a packet opening on a queue with notifications reaches a signed
// webhook (verified by the receiver), a Slack-format receiver and an SMTP sink once each — also with two
// dispatchers at once — with a link that opens the packet. A failing receiver is retried and recorded; a
// receiver that is down or hangs never holds the run. Escalation, the coming deadline and a run that
// needs attention are told too. The admin API validates, audits, and is admin-only.

const BASE_URL = "https://tether.example.com";
const OVER_LIMIT = { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" } as const;
const silent = { info: () => {}, warn: () => {}, error: () => {} };

type Received = { headers: IncomingHttpHeaders; body: string; isVerified: boolean | null };

/** An HTTP receiver; with a secret it verifies Standard Webhooks signatures as a real one would (401 when wrong). */
async function startReceiver(
  opts: { secret?: () => string | undefined; respond?: (n: number) => number | "hang" } = {},
) {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let isVerified: boolean | null = null;
    const secret = opts.secret?.();
    if (secret) {
      try {
        const headers = readWebhookHeaders(new Headers(req.headers as Record<string, string>));
        checkWebhookTimestamp(headers.timestamp, new Date(), 300);
        checkWebhookSignature(headers, body, [decodeWebhookSecret(secret)!]);
        isVerified = true;
      } catch {
        isVerified = false;
      }
    }
    received.push({ headers: req.headers, body: body.toString("utf8"), isVerified });
    const status = isVerified === false ? 401 : (opts.respond?.(received.length) ?? 200);
    if (status !== "hang") res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(providers())("notifications [%s]", (_provider, url) => {
  let world: World;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let api: Awaited<ReturnType<typeof startRouteServer>>;
  let t: ReturnType<typeof createTestRuntime>;
  const clock = manualClock();
  const agents: AgentDefinition[] = [];
  const savedHosts = process.env.TETHER_TOOL_ALLOWED_HOSTS;
  const dispatchers: Array<{ stop: () => Promise<void> }> = [];

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    process.env.TETHER_TOOL_ALLOWED_HOSTS = "127.0.0.1"; // the local receivers
    world = await startWorld();
    smtp = await startSmtpSink();
    api = await startRouteServer();
    t = createTestRuntime(url, { clock, agents, tools: worldTools(world.url) });
  });
  afterAll(async () => {
    await Promise.all(dispatchers.map((d) => d.stop()));
    process.env.TETHER_TOOL_ALLOWED_HOSTS = savedHosts;
    await Promise.all([api.close(), smtp.close(), world.close()]);
    await t.close();
  });

  const dispatcher = (opts: Partial<NotificationsOptions> = {}) => {
    const d = startNotifications({
      db: t.db,
      baseUrl: BASE_URL,
      logger: silent,
      smtp: { url: smtp.url, from: "tether@example.com" },
      intervalMs: 0,
      retry: { baseDelayMs: 0 },
      now: clock.now,
      ...opts,
    });
    dispatchers.push(d);
    return d;
  };
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(api.url + path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  const deliveriesOf = (packetId: string) =>
    t.db.notificationDelivery.findMany({ where: { packetId }, orderBy: { createdAt: "asc" } });
  const drain = () => t.runtime.createWorker().drain();

  /** A run of a fresh refund agent waiting on its approval packet in `queue`. */
  async function waitingPacket(queue: string, rule: Record<string, unknown> = {}) {
    const agent = refundAgent(uid("notify-refund"));
    agents.push(agent);
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent, { "payments.refund": { conditions: [OVER_LIMIT], queue, ...rule } });
    const orderId = uid("order");
    world.orders.set(orderId, { id: orderId, amountCents: 24_000, status: "paid" });
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { orderId, email: "bob@example.com" } });
    await drain();
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    expect(packet.queue).toBe(queue);
    return { runId: run.id, packet };
  }

  it("a packet opening reaches a signed webhook, a Slack receiver and an SMTP sink once each, with a link that opens the packet", async () => {
    const admin = await createPersonWithToken(t.db, { role: "admin", scopes: ["admin"] });
    let secret: string | undefined;
    const webhook = await startReceiver({ secret: () => secret });
    const slack = await startReceiver();
    try {
      const queue = uid("finance");
      const created = await call("POST", "/api/notifications", admin.token, {
        queue,
        kind: "webhook",
        target: webhook.url,
        events: ["packet.opened"],
      });
      expect(created).toMatchObject({
        status: 201,
        json: { queue, kind: "webhook", isSigned: true, secret: expect.stringMatching(/^whsec_/) },
      });
      secret = created.json.secret;
      expect(
        (await call("POST", "/api/notifications", admin.token, { queue, kind: "slack", target: slack.url })).status,
      ).toBe(201);
      expect(
        (
          await call("POST", "/api/notifications", admin.token, {
            queue,
            kind: "email",
            target: "finance-leads@example.com",
          })
        ).status,
      ).toBe(201);

      const { runId, packet } = await waitingPacket(queue);
      // Two consoles at once, then again: each notification is queued and sent once.
      const [a, b] = [dispatcher(), dispatcher()];
      await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
      await a.runOnce();

      expect(webhook.received).toHaveLength(1);
      const hook = webhook.received[0];
      expect(hook.isVerified).toBe(true);
      expect(hook.headers["content-type"]).toBe("application/json");
      const event = JSON.parse(hook.body);
      expect(event).toMatchObject({
        type: "packet.opened",
        data: {
          packetId: packet.id,
          runId,
          queue,
          tool: "payments.refund",
          impact: packet.content.impact,
          link: `${BASE_URL}/inbox/${packet.id}`,
        },
      });

      expect(slack.received).toHaveLength(1);
      const message = JSON.parse(slack.received[0].body);
      expect(message.text).toContain(packet.content.impact);
      expect(message.text).toContain(`<${BASE_URL}/inbox/${packet.id}|Open the packet>`);
      expect(message.blocks[0]).toMatchObject({ type: "section", text: { type: "mrkdwn", text: message.text } });

      const mails = smtp.mails.filter((m) => decodeQp(m.raw).includes(packet.id));
      expect(mails).toHaveLength(1);
      expect(mails[0]).toMatchObject({ user: "tether", to: ["finance-leads@example.com"] });
      expect(decodeQp(mails[0].raw)).toContain(`Open the packet: ${BASE_URL}/inbox/${packet.id}`);
      expect(decodeQp(mails[0].raw)).toMatch(/^Subject: \[Tether\] Decision needed in /m);

      // The link opens the packet: the console's packet page reads the id from /inbox/<id>.
      const link = new URL(event.data.link);
      const id = decodeURIComponent(/^\/inbox\/([^/]+)$/.exec(link.pathname)![1]);
      expect(existsSync("app/(console)/inbox/[id]/page.tsx")).toBe(true);
      const view = await getPacketView(id, {
        store: t.store,
        db: t.db,
        findTool: async (name) => t.runtime.context.tools.get(name),
      });
      expect(view?.packet).toMatchObject({ id: packet.id, status: "PENDING" });

      const deliveries = await deliveriesOf(packet.id);
      expect(deliveries.map((d) => [d.status, d.attempts, d.event])).toEqual([
        ["delivered", 1, "packet.opened"],
        ["delivered", 1, "packet.opened"],
        ["delivered", 1, "packet.opened"],
      ]);
      expect(hook.headers["webhook-id"]).toBe(deliveries.find((d) => d.channelId === created.json.id)!.id);

      const listed = await call("GET", "/api/notifications", admin.token);
      expect(listed.json.channels.filter((c: { queue: string }) => c.queue === queue)).toHaveLength(3);
      expect(JSON.stringify(listed.json)).not.toContain(secret);
      expect(listed.json.deliveries.filter((d: { packetId: string }) => d.packetId === packet.id)).toHaveLength(3);
    } finally {
      await Promise.all([webhook.close(), slack.close()]);
    }
  });

  it("a failing receiver is retried with the same signed message, and each attempt is recorded", async () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`; // the receiver's own secret
    const webhook = await startReceiver({ secret: () => secret, respond: (n) => (n === 1 ? 500 : 200) });
    const channel = await createChannel(
      t.db,
      { queue: uid("ops"), kind: "webhook", target: webhook.url, events: ["packet.opened"], secret },
      { by: "admin@example.com" },
    );
    expect(channel.secret).toBe(secret);
    try {
      const { packet } = await waitingPacket(channel.queue);
      const d = dispatcher();
      expect(await d.runOnce()).toMatchObject({ queued: 1, retrying: 1 });
      expect(await deliveriesOf(packet.id)).toEqual([
        expect.objectContaining({ status: "pending", attempts: 1, lastError: "HTTP 500", deliveredAt: null }),
      ]);
      expect(await d.runOnce()).toMatchObject({ queued: 0, delivered: 1 });
      expect(await deliveriesOf(packet.id)).toEqual([
        expect.objectContaining({ status: "delivered", attempts: 2, lastError: null, deliveredAt: expect.any(Date) }),
      ]);
      expect(webhook.received.map((r) => r.isVerified)).toEqual([true, true]);
      expect(new Set(webhook.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
      expect(webhook.received[1].body).toBe(webhook.received[0].body);
      await d.runOnce();
      expect(webhook.received).toHaveLength(2);
    } finally {
      await webhook.close();
    }
  });

  it("a receiver that is down or never answers does not hold the run: it is decided and completes while the delivery waits to be retried", async () => {
    const hanging = await startReceiver({ respond: () => "hang" });
    const down = await startReceiver();
    await down.close(); // nothing listens on its port any more
    try {
      const queue = uid("support");
      await createChannel(t.db, { queue, kind: "slack", target: hanging.url }, { by: "admin@example.com" });
      await createChannel(t.db, { queue, kind: "webhook", target: down.url }, { by: "admin@example.com" });
      const d = dispatcher({ intervalMs: 20, sendTimeoutMs: 1_500 });
      const { runId, packet } = await waitingPacket(queue);
      await until("a send to the hanging channel is in flight", () => hanging.received.length > 0);

      await t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "rita@example.com",
        input: { decision: "approve" },
      });
      await drain();
      expect((await t.runtime.getRun(runId)).status).toBe("COMPLETED");

      const errors = await until(async () => (await deliveriesOf(packet.id)).map((x) => x.lastError).sort(), {
        what: "both deliveries record their failure",
        holds: (seen) => seen.length === 2 && seen.every((e) => e !== null),
      });
      expect(errors).toEqual([expect.stringMatching(/ECONNREFUSED/), "timed out"]);
      await d.stop();
      expect(
        (await deliveriesOf(packet.id)).every(
          (x) => x.status === "pending" && x.attempts >= 1 && x.deliveredAt === null,
        ),
      ).toBe(true);
    } finally {
      await hanging.close();
    }
  });

  it("tells a queue's channels when a packet's deadline is near and when it is escalated into the queue", async () => {
    const receiver = await startReceiver();
    try {
      const [finance, leads] = [uid("finance"), uid("leads")];
      const expiring = await createChannel(
        t.db,
        { queue: finance, kind: "slack", target: receiver.url, events: ["packet.expiring"] },
        { by: "admin@example.com" },
      );
      const escalated = await createChannel(
        t.db,
        { queue: leads, kind: "slack", target: receiver.url, events: ["packet.escalated"] },
        { by: "admin@example.com" },
      );
      const { packet } = await waitingPacket(finance, { ttlSeconds: 600, onExpire: `escalate:${leads}` });
      const d = dispatcher();
      await d.runOnce();
      expect(await deliveriesOf(packet.id)).toEqual([]); // ten minutes left: not yet

      clock.advance(9 * 60_000); // one minute left: within the last 10%
      await d.runOnce();
      clock.advance(2 * 60_000); // expired: escalated to the leads with a fresh deadline
      await drain();
      expect(await t.store.getPacket(packet.id, null)).toMatchObject({ status: "PENDING", queue: leads });
      await d.runOnce();
      await d.runOnce();

      const deliveries = await deliveriesOf(packet.id);
      expect(deliveries.map((x) => [x.channelId, x.event, x.status])).toEqual([
        [expiring.id, "packet.expiring", "delivered"],
        [escalated.id, "packet.escalated", "delivered"],
      ]);
      const texts = receiver.received.map((r) => JSON.parse(r.body).text as string);
      expect(texts).toEqual([
        expect.stringContaining(`*About to expire in ${finance}*`),
        expect.stringContaining(`*Escalated from ${finance} to ${leads}*`),
      ]);
    } finally {
      await receiver.close();
    }
  });

  it("tells the attention queue when a run needs attention (an effect whose outcome is unknown)", async () => {
    const receiver = await startReceiver();
    try {
      const channel = await createChannel(
        t.db,
        { queue: "attention", kind: "slack", target: receiver.url, events: ["run.needs_attention"] },
        { by: "admin@example.com" },
      );
      const tool: ToolDefinition = {
        name: `lossy.send.${uid("t")}`,
        description: "its answer is lost",
        capability: "execute",
        semantics: "unsafe",
        input: z.object({ to: z.string() }),
        impact: ({ to }) => `sends to ${to}`,
        async run() {
          throw new ToolError("timeout", "no answer in time");
        },
      };
      t.runtime.context.tools.set(tool.name, tool);
      const agent = scriptedAgent(
        uid("lossy"),
        [tool.name],
        [{ kind: "call", tool: tool.name, args: { to: "a@example.com" }, resultKey: "sent", evidence: [] }],
      );
      t.runtime.context.agents.set(agent.slug, agent);
      await grant(t.runtime, agent);
      const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
      await drain();
      expect((await t.runtime.getRun(run.id)).status).toBe("NEEDS_ATTENTION");
      const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });

      await dispatcher().runOnce();
      expect((await deliveriesOf(packet.id)).map((x) => [x.channelId, x.event, x.runId, x.status])).toEqual([
        [channel.id, "run.needs_attention", run.id, "delivered"],
      ]);
      const text = receiver.received.map((r) => JSON.parse(r.body).text as string).find((s) => s.includes(packet.id));
      expect(text).toMatch(
        /A run needs attention in attention\*: sends to a@example\.com — may or may not have happened/,
      );
      await t.db.notificationChannel.update({ where: { id: channel.id }, data: { disabledAt: new Date() } }); // the attention queue is shared
    } finally {
      await receiver.close();
    }
  });

  it("the admin API refuses a bad channel (nothing stored), is admin-only, audits, and a removed channel sends nothing more", async () => {
    const admin = await createPersonWithToken(t.db, { role: "admin", scopes: ["admin"] });
    const operator = await createPersonWithToken(t.db, { role: "operator", scopes: ["runs:read", "runs:write"] });
    const queue = uid("billing");
    const receiver = await startReceiver();
    try {
      expect((await call("GET", "/api/notifications", operator.token)).status).toBe(403);
      expect(
        (await call("POST", "/api/notifications", operator.token, { queue, kind: "slack", target: receiver.url }))
          .status,
      ).toBe(403);

      const refused = async (body: Record<string, unknown>, field: string) => {
        const res = await call("POST", "/api/notifications", admin.token, { queue, ...body });
        expect(res).toMatchObject({ status: 400, json: { error: { code: "INVALID_INPUT" } } });
        expect(res.json.error.fieldErrors).toHaveProperty(field);
      };
      await refused({ kind: "pager", target: receiver.url }, "kind");
      await refused({ kind: "webhook", target: "not a url" }, "target");
      await refused({ kind: "slack", target: "ftp://example.com/x" }, "target");
      await refused({ kind: "slack", target: "http://10.1.2.3/hook" }, "target"); // the egress policy: a private address
      await refused({ kind: "email", target: "nobody" }, "target");
      await refused({ kind: "slack", target: receiver.url, events: ["packet.decided"] }, "events.0");
      await refused({ kind: "slack", target: receiver.url, secret: "whsec_abc" }, "secret");
      await refused({ kind: "webhook", target: receiver.url, secret: "not-a-secret" }, "secret");
      await refused({ kind: "slack", target: receiver.url, queue: "no spaces" }, "queue");
      expect(await t.db.notificationChannel.count({ where: { queue } })).toBe(0);
      expect(
        await t.db.auditLog.count({
          where: { actor: { in: [admin.email, operator.email] }, action: "notifications.create" },
        }),
      ).toBe(0);

      const created = await call("POST", "/api/notifications", admin.token, {
        queue,
        kind: "slack",
        target: receiver.url,
      });
      expect(created).toMatchObject({
        status: 201,
        json: {
          events: ["packet.opened", "packet.escalated", "packet.expiring", "run.needs_attention"],
          isSigned: false,
        },
      });
      expect(created.json).not.toHaveProperty("secret");
      expect(await call("DELETE", `/api/notifications/${created.json.id}`, admin.token)).toMatchObject({
        status: 200,
        json: { removed: created.json.id },
      });
      expect((await call("DELETE", `/api/notifications/${created.json.id}`, admin.token)).status).toBe(404);
      expect((await call("DELETE", `/api/notifications/${created.json.id}`, operator.token)).status).toBe(403);
      const audit = await t.db.auditLog.findMany({
        where: { target: created.json.id },
        orderBy: { at: "asc" },
        select: { actor: true, action: true },
      });
      expect(audit).toEqual([
        { actor: admin.email, action: "notifications.create" },
        { actor: admin.email, action: "notifications.delete" },
      ]);

      const { packet } = await waitingPacket(queue);
      await dispatcher().runOnce();
      expect(await deliveriesOf(packet.id)).toEqual([]);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });
});
