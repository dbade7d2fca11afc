import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putQueueDeciders } from "../lib/commands/put-queue-deciders";
import { whyNotDecider } from "../lib/inbox/queue-deciders";
import { buildPayload } from "../lib/notifications/events";
import { slackMessage } from "../lib/notifications/send";
import type { AgentDefinition, DecisionPacket } from "../lib/runtime";
import { inWorkspace } from "../lib/runtime/workspace";
import { slackSignature } from "../lib/slack/verify-request";
import {
  asConsoleRequest,
  createOtherWorkspace,
  expectDecisionAuditedOnlyIn,
  createPerson,
  decisionFootprint,
  waitingRefundPacket,
} from "./support/decision-gates";
import { startRouteServer } from "./support/route-server";
import { createTestRuntime, providers, uid } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// A click on a Slack notification's button: Slack signs the request (v0 HMAC of "v0:<ts>:<body>", five-
// minute window), the route learns the clicker's email from Slack's users.info (a fake Web API on
// 127.0.0.1 here) and decides as that Tether person through the runtime; the answer replaces the message
// via response_url. Bad signatures, old timestamps, unknown people, people the rules refuse and
// separation of duties all write nothing.

const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const BOT_TOKEN = "xoxb-test-token";

/** Slack's Web API (users.info) and the messages' response_url, as a local server. */
async function startFakeSlack() {
  const emails = new Map<string, string>();
  const responses: Array<{ path: string; body: Record<string, unknown> }> = [];
  let usersInfoCalls = 0;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === "GET" && url.pathname === "/api/users.info") {
      usersInfoCalls++;
      if (req.headers.authorization !== `Bearer ${BOT_TOKEN}`)
        return res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ ok: false, error: "invalid_auth" }));
      const id = url.searchParams.get("user") ?? "";
      const email = emails.get(id);
      const body = email
        ? { ok: true, user: { id, name: id.toLowerCase(), profile: { email, real_name: id } } }
        : { ok: false, error: "user_not_found" };
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    }
    if (req.method === "POST" && url.pathname.startsWith("/response/")) {
      responses.push({ path: url.pathname, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      return res.writeHead(200).end("ok");
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    emails,
    responses,
    usersInfoCalls: () => usersInfoCalls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(providers())("Slack interactions [%s]", (_provider, url) => {
  let world: World;
  let api: Awaited<ReturnType<typeof startRouteServer>>;
  let slack: Awaited<ReturnType<typeof startFakeSlack>>;
  let t: ReturnType<typeof createTestRuntime>;
  const agents: AgentDefinition[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    process.env.DATABASE_URL = url;
    world = await startWorld();
    slack = await startFakeSlack();
    api = await startRouteServer();
    Object.assign(process.env, {
      TETHER_SLACK_SIGNING_SECRET: SIGNING_SECRET,
      TETHER_SLACK_BOT_TOKEN: BOT_TOKEN,
      TETHER_SLACK_API_URL: `${slack.base}/api`,
    });
    t = createTestRuntime(url, {
      agents,
      tools: worldTools(world.url),
      authorizeDecision: (reviewer, packet) => whyNotDecider(t.db, reviewer, packet),
    });
  });
  afterAll(async () => {
    for (const name of ["TETHER_SLACK_SIGNING_SECRET", "TETHER_SLACK_BOT_TOKEN", "TETHER_SLACK_API_URL"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await Promise.all([api.close(), slack.close(), world.close()]);
    await t.close();
  });

  /** A person of this Tether (of the `onlyIn` workspace only, if given) who is also a Slack user (users.info answers their email). */
  async function slackPerson(role: "reviewer" | "operator" = "reviewer", opts: { onlyIn?: string } = {}) {
    const person = await createPerson(t.db, role, opts);
    const slackId = `U${uid("").slice(1, 9).toUpperCase()}`;
    slack.emails.set(slackId, person.email);
    return { ...person, slackId };
  }

  /** The buttons of the Slack notification for this packet, as the dispatcher would send them. */
  async function notificationButtons(packet: DecisionPacket) {
    const row = await t.db.decisionPacket.findUniqueOrThrow({
      where: { id: packet.id },
      select: {
        id: true,
        workspaceId: true,
        runId: true,
        kind: true,
        tool: true,
        digest: true,
        queue: true,
        requestedBy: true,
        packet: true,
        createdAt: true,
        changedAt: true,
        expiresAt: true,
      },
    });
    const message = slackMessage(
      buildPayload("packet.opened", row, { now: new Date(), baseUrl: "https://tether.example.com" }),
    );
    const actions = message.blocks.find((b) => b.type === "actions") as {
      elements: Array<{ action_id: string; value?: string; url?: string }>;
    };
    return Object.fromEntries(actions.elements.map((e) => [e.action_id, e]));
  }

  let responseCount = 0;
  function interaction(slackId: string, action: { action_id: string; value?: string }) {
    const responsePath = `/response/${++responseCount}`;
    const payload = {
      type: "block_actions",
      user: { id: slackId, username: slackId.toLowerCase(), team_id: "T0001" },
      api_app_id: "A0001",
      team: { id: "T0001", domain: "acme" },
      container: { type: "message", message_ts: "1700000000.000100", channel_id: "C0001", is_ephemeral: false },
      trigger_id: "1.2.3",
      channel: { id: "C0001", name: "finance" },
      response_url: `${slack.base}${responsePath}`,
      actions: [{ type: "button", block_id: "tether_decision", action_ts: "1700000001.000200", ...action }],
    };
    return { body: `payload=${encodeURIComponent(JSON.stringify(payload))}`, responsePath };
  }

  async function post(body: string, opts: { timestamp?: number; signature?: string } = {}) {
    const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
    const res = await fetch(`${api.url}/api/slack/interactions`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": opts.signature ?? slackSignature(SIGNING_SECRET, timestamp, body),
      },
      body,
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  }

  async function expectRefusedWithoutWrites(
    packetId: string,
    send: () => Promise<{ status: number; json: { text?: string; response_type?: string; error?: unknown } }>,
  ) {
    const before = await decisionFootprint(t.db, packetId);
    const res = await send();
    expect(await decisionFootprint(t.db, packetId)).toEqual(before);
    return res;
  }

  it("Approve in Slack decides the packet as the clicking person and replaces the message to say who", async () => {
    const alice = await slackPerson();
    const packet = await waitingRefundPacket(t, world, agents);
    const buttons = await notificationButtons(packet);
    expect(JSON.parse(buttons["tether.approve"].value!)).toEqual({ packetId: packet.id, digest: packet.digest });
    expect(buttons["tether.open"].url).toBe(`https://tether.example.com/inbox/${packet.id}`);

    const { body, responsePath } = interaction(alice.slackId, buttons["tether.approve"]);
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      replace_original: true,
      text: expect.stringContaining(`Approved* by ${alice.email}`),
    });
    expect(await t.store.getPacket(packet.id, null)).toMatchObject({ status: "APPROVED", decidedBy: alice.email });
    const audit = await t.db.auditLog.findFirstOrThrow({ where: { target: packet.id, action: "packets.decide" } });
    expect(JSON.parse(audit.data)).toMatchObject({ via: `slack:${alice.slackId}` });
    const reply = slack.responses.find((r) => r.path === responsePath);
    expect(reply?.body).toMatchObject({ replace_original: true, text: expect.stringContaining(alice.email) });

    // A second click (another copy of the message): already decided, told only to the clicker.
    const again = await expectRefusedWithoutWrites(packet.id, () =>
      post(interaction(alice.slackId, buttons["tether.approve"]).body),
    );
    expect(again.json).toMatchObject({
      response_type: "ephemeral",
      replace_original: false,
      text: expect.stringMatching(/already decided/),
    });
  });

  it("Reject in Slack rejects with a reason naming the person; users.info is asked once for both clicks", async () => {
    const bob = await slackPerson();
    const [first, second] = [await waitingRefundPacket(t, world, agents), await waitingRefundPacket(t, world, agents)];
    const calls = slack.usersInfoCalls();
    for (const packet of [first, second]) {
      const buttons = await notificationButtons(packet);
      expect((await post(interaction(bob.slackId, buttons["tether.reject"]).body)).json).toMatchObject({
        replace_original: true,
        text: expect.stringContaining(`Rejected* by ${bob.email}`),
      });
      expect(await t.store.getPacket(packet.id, null)).toMatchObject({
        status: "REJECTED",
        decidedBy: bob.email,
        decision: { decision: "reject", reason: `Rejected in Slack by ${bob.email}.` },
      });
    }
    expect(slack.usersInfoCalls() - calls).toBe(1);
  });

  it("Approve in Slack on a packet of another workspace decides it in that workspace; the default one gets nothing", async () => {
    const team = await createOtherWorkspace(t.db);
    // A reviewer of that team only: in the default workspace they may decide nothing.
    const dana = await slackPerson("reviewer", { onlyIn: team.id });
    const packet = await inWorkspace(team.id, () => waitingRefundPacket(t, world, agents));
    expect(packet.workspaceId).toBe(team.id);

    // Slack's request names no workspace, and the route enters none.
    const buttons = await notificationButtons(packet);
    const res = await asConsoleRequest(() => post(interaction(dana.slackId, buttons["tether.approve"]).body));
    expect(res).toMatchObject({
      status: 200,
      json: { replace_original: true, text: expect.stringContaining(`Approved* by ${dana.email}`) },
    });
    expect(await t.store.getPacket(packet.id, team.id)).toMatchObject({
      status: "APPROVED",
      decidedBy: dana.email,
      workspaceId: team.id,
    });

    await expectDecisionAuditedOnlyIn(t.db, team.id, {
      packetId: packet.id,
      reviewer: dana.email,
      via: `slack:${dana.slackId}`,
    });
  });

  it("a bad signature, a missing one, or a replayed request older than five minutes is refused (401) and writes nothing", async () => {
    const alice = await slackPerson();
    const packet = await waitingRefundPacket(t, world, agents);
    const { body } = interaction(alice.slackId, (await notificationButtons(packet))["tether.approve"]);
    const now = Math.floor(Date.now() / 1000);
    const badSignature = await expectRefusedWithoutWrites(packet.id, () =>
      post(body, { signature: slackSignature("not-the-secret", String(now), body) }),
    );
    expect(badSignature).toMatchObject({
      status: 401,
      json: { error: { code: "UNAUTHENTICATED", message: "The Slack signature does not match." } },
    });
    const otherBody = await expectRefusedWithoutWrites(packet.id, () =>
      post(body, { signature: slackSignature(SIGNING_SECRET, String(now), `${body}x`) }),
    );
    expect(otherBody.status).toBe(401);
    const old = now - 301;
    const replayed = await expectRefusedWithoutWrites(packet.id, () =>
      post(body, { timestamp: old, signature: slackSignature(SIGNING_SECRET, String(old), body) }),
    );
    expect(replayed).toMatchObject({
      status: 401,
      json: { error: { message: expect.stringMatching(/five-minute window/) } },
    });
    const unsigned = await expectRefusedWithoutWrites(packet.id, async () => {
      const res = await fetch(`${api.url}/api/slack/interactions`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body,
      });
      return { status: res.status, json: await res.json() };
    });
    expect(unsigned.status).toBe(401);
    // Within the window, the same body signed right is accepted: the refusals above were the signature's.
    expect(
      (await post(body, { timestamp: now - 200, signature: slackSignature(SIGNING_SECRET, String(now - 200), body) }))
        .status,
    ).toBe(200);
    expect((await t.store.getPacket(packet.id, null))?.status).toBe("APPROVED");
  });

  it("a Slack user Tether does not know is refused with an ephemeral message and nothing is written", async () => {
    const packet = await waitingRefundPacket(t, world, agents);
    const approve = (await notificationButtons(packet))["tether.approve"];
    const unknownInSlack = await expectRefusedWithoutWrites(packet.id, () =>
      post(interaction("UNOBODY01", approve).body),
    );
    expect(unknownInSlack).toMatchObject({
      status: 200,
      json: {
        response_type: "ephemeral",
        replace_original: false,
        text: expect.stringMatching(/Tether does not know you/),
      },
    });
    slack.emails.set("UOUTSIDER", "outsider@elsewhere.example");
    const { body, responsePath } = interaction("UOUTSIDER", approve);
    const outsider = await expectRefusedWithoutWrites(packet.id, () => post(body));
    expect(outsider.json).toMatchObject({
      response_type: "ephemeral",
      text: expect.stringMatching(/Tether does not know you/),
    });
    expect(slack.responses.find((r) => r.path === responsePath)?.body).toMatchObject({
      response_type: "ephemeral",
      replace_original: false,
    });
  });

  it("a person the queue's deciders exclude, and the person who started the run, are refused and nothing is written", async () => {
    const [carol, named] = [await slackPerson(), await slackPerson()];
    const queue = uid("restricted");
    await putQueueDeciders(t.db, { queue, input: { people: [named.email] }, by: "admin@example.com" });
    const restricted = await waitingRefundPacket(t, world, agents, { queue });
    const notAllowed = await expectRefusedWithoutWrites(restricted.id, async () =>
      post(interaction(carol.slackId, (await notificationButtons(restricted))["tether.approve"]).body),
    );
    expect(notAllowed.json).toMatchObject({ response_type: "ephemeral", text: expect.stringMatching(/is decided by/) });

    const own = await waitingRefundPacket(t, world, agents, { startedBy: carol.email });
    const sod = await expectRefusedWithoutWrites(own.id, async () =>
      post(interaction(carol.slackId, (await notificationButtons(own))["tether.approve"]).body),
    );
    expect(sod.json).toMatchObject({
      response_type: "ephemeral",
      text: expect.stringMatching(/You requested this action/),
    });
  });

  it("a button whose digest is no longer the packet's, or a body that is not a Slack payload, writes nothing", async () => {
    const alice = await slackPerson();
    const packet = await waitingRefundPacket(t, world, agents);
    const changed = await expectRefusedWithoutWrites(packet.id, () =>
      post(
        interaction(alice.slackId, {
          action_id: "tether.approve",
          value: JSON.stringify({ packetId: packet.id, digest: "0".repeat(64) }),
        }).body,
      ),
    );
    expect(changed.json).toMatchObject({
      response_type: "ephemeral",
      text: expect.stringMatching(/changed since this message/),
    });
    const malformed = await expectRefusedWithoutWrites(packet.id, () => post("payload=%7Bnot-json"));
    expect(malformed).toMatchObject({
      status: 400,
      json: { error: { code: "INVALID_INPUT", fieldErrors: { payload: expect.any(Array) } } },
    });
  });
});
