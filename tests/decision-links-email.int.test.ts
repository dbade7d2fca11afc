import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDecisionLink } from "../lib/decision-links/open-decision-link";
import { decisionLinkKey } from "../lib/decision-links/token";
import { putQueueDeciders } from "../lib/commands/put-queue-deciders";
import { whyNotDecider } from "../lib/inbox/queue-deciders";
import { createChannel } from "../lib/notifications/channels";
import { startNotifications } from "../lib/notifications/dispatcher";
import { decisionLinksForRecipient } from "../lib/decision-links/links-for-recipient";
import type { AgentDefinition } from "../lib/runtime";
import { inWorkspace } from "../lib/runtime/workspace";
import { asConsoleRequest, createOtherWorkspace, createPerson, waitingRefundPacket } from "./support/decision-gates";
import { startRouteServer } from "./support/route-server";
import { createTestRuntime, providers, uid } from "./support/runtime";
import { decodeQp, startSmtpSink } from "./support/smtp-sink";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// An email notification carries, for a recipient who may decide the packet, their own decision links;
// following one (open the page, then confirm) decides the packet as that person. A recipient who is not a
// person of this Tether, or may not decide the queue, gets the console link only.

const BASE_URL = "https://tether.example.com";
const silent = { info: () => {}, warn: () => {}, error: () => {} };

describe.each(providers())("decision links by email [%s]", (_provider, url) => {
  let world: World;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let api: Awaited<ReturnType<typeof startRouteServer>>;
  let t: ReturnType<typeof createTestRuntime>;
  const agents: AgentDefinition[] = [];

  beforeAll(async () => {
    process.env.DATABASE_URL = url;
    world = await startWorld();
    smtp = await startSmtpSink();
    api = await startRouteServer();
    t = createTestRuntime(url, {
      agents,
      tools: worldTools(world.url),
      authorizeDecision: (reviewer, packet) => whyNotDecider(t.db, reviewer, packet),
    });
  });
  afterAll(async () => {
    await Promise.all([api.close(), smtp.close(), world.close()]);
    await t.close();
  });

  it("the email to a person who may decide holds their links; following one decides the packet as them", async () => {
    const queue = uid("finance");
    const [reviewer, notNamed] = [await createPerson(t.db), await createPerson(t.db)];
    await putQueueDeciders(t.db, { queue, input: { people: [reviewer.email] }, by: "admin@example.com" });
    for (const target of [reviewer.email, notNamed.email, "finance-leads@example.com"]) {
      await createChannel(
        t.db,
        { queue, kind: "email", target, events: ["packet.opened"] },
        { by: "admin@example.com" },
      );
    }
    const packet = await waitingRefundPacket(t, world, agents, { queue });
    const dispatcher = startNotifications({
      db: t.db,
      baseUrl: BASE_URL,
      logger: silent,
      smtp: { url: smtp.url, from: "tether@example.com" },
      intervalMs: 0,
    });
    try {
      await dispatcher.runOnce();
    } finally {
      await dispatcher.stop();
    }

    const mailTo = (address: string) =>
      smtp.mails
        .filter((m) => m.to.includes(address) && decodeQp(m.raw).includes(packet.id))
        .map((m) => decodeQp(m.raw));
    const [personal] = mailTo(reviewer.email);
    expect(personal).toContain(`Open the packet: ${BASE_URL}/inbox/${packet.id}`);
    const approve = /^Approve: (\S+)$/m.exec(personal)?.[1];
    const reject = /^Reject: (\S+)$/m.exec(personal)?.[1];
    expect(approve).toMatch(new RegExp(`^${BASE_URL}/d/dl_[0-9a-f]{32}\\.[\\w-]{43}\\?choice=approve$`));
    expect(reject).toBe(approve!.replace("choice=approve", "choice=reject"));
    // Not a person of this Tether, or a person the queue's deciders leave out: the console link only.
    for (const address of ["finance-leads@example.com", notNamed.email]) {
      const [mail] = mailTo(address);
      expect(mail).toContain(`Open the packet: ${BASE_URL}/inbox/${packet.id}`);
      expect(mail).not.toContain("/d/");
    }
    expect(await t.db.decisionLink.count({ where: { packetId: packet.id } })).toBe(1);

    // Follow the link: the page (GET) shows the packet and decides nothing; the form (POST) decides.
    const link = new URL(approve!);
    const token = decodeURIComponent(link.pathname.replace(/^\/d\//, ""));
    const opened = await openDecisionLink(
      { db: t.db, getPacket: (id) => t.store.getPacket(id, null), key: decisionLinkKey(), now: () => new Date() },
      token,
    );
    expect(opened).toMatchObject({
      state: "open",
      person: { email: reviewer.email },
      packet: { id: packet.id, status: "PENDING" },
    });
    const res = await fetch(`${api.url}/api/decision-links`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, decision: link.searchParams.get("choice")! }),
    });
    expect(res.status).toBe(303);
    expect(await t.store.getPacket(packet.id, null)).toMatchObject({ status: "APPROVED", decidedBy: reviewer.email });
  });

  // The sender runs with no workspace entered; a link to a packet of another workspace must open and decide it.
  it("the link the sender issues is the packet's workspace's, and deciding through it works", async () => {
    const team = await createOtherWorkspace(t.db);
    const reviewer = await createPerson(t.db, "reviewer", { onlyIn: team.id });
    const packet = await inWorkspace(team.id, () => waitingRefundPacket(t, world, agents));
    const links = await decisionLinksForRecipient(t.db, {
      email: reviewer.email,
      packetId: packet.id,
      baseUrl: BASE_URL,
    });
    expect(links?.approve).toBeDefined();
    const row = await t.db.decisionLink.findFirstOrThrow({ where: { packetId: packet.id } });
    const token = decodeURIComponent(new URL(links!.approve!).pathname.replace(/^\/d\//, ""));
    const res = await asConsoleRequest(() =>
      fetch(`${api.url}/api/decision-links`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, decision: "approve" }),
      }),
    );
    const text = await res.text();
    expect({ status: res.status, linkWorkspace: row.workspaceId }, text).toEqual({
      status: 200,
      linkWorkspace: team.id,
    });
  });
});
