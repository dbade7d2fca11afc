import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decisionLinksForRecipient } from "../lib/decision-links/links-for-recipient";
import { whyNotDecider } from "../lib/inbox/queue-deciders";
import type { AgentDefinition } from "../lib/runtime";
import { inWorkspace } from "../lib/runtime/workspace";
import { asConsoleRequest, createOtherWorkspace, createPerson, waitingRefundPacket } from "./support/decision-gates";
import { startRouteServer } from "./support/route-server";
import { createTestRuntime, providers } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// The email sender issues a recipient's links with no workspace entered (the notifications loop runs outside
// any request). A link to a packet of another workspace must still open and decide that packet.

describe.each(providers())("decision links issued by the email sender for another workspace [%s]", (_provider, url) => {
  let world: World;
  let api: Awaited<ReturnType<typeof startRouteServer>>;
  let t: ReturnType<typeof createTestRuntime>;
  const agents: AgentDefinition[] = [];

  beforeAll(async () => {
    process.env.DATABASE_URL = url;
    world = await startWorld();
    api = await startRouteServer();
    t = createTestRuntime(url, {
      agents,
      tools: worldTools(world.url),
      authorizeDecision: (reviewer, packet) => whyNotDecider(t.db, reviewer, packet),
    });
  });
  afterAll(async () => {
    await Promise.all([api.close(), world.close()]);
    await t.close();
  });

  it("the link the sender issues is the packet's workspace's, and deciding through it works", async () => {
    const team = await createOtherWorkspace(t.db);
    const reviewer = await createPerson(t.db, "reviewer", { onlyIn: team.id });
    const packet = await inWorkspace(team.id, () => waitingRefundPacket(t, world, agents));
    const links = await decisionLinksForRecipient(t.db, {
      email: reviewer.email,
      packetId: packet.id,
      baseUrl: "https://tether.example.com",
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
