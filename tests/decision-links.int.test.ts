import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideByLink, type DecideByLinkDeps } from "../lib/decision-links/decide-by-link";
import { issueDecisionLink } from "../lib/decision-links/issue-decision-link";
import { openDecisionLink } from "../lib/decision-links/open-decision-link";
import { decisionLinkKey, linkToken, parseLinkToken } from "../lib/decision-links/token";
import { putQueueDeciders } from "../lib/commands/put-queue-deciders";
import { whyNotDecider } from "../lib/inbox/queue-deciders";
import type { AgentDefinition, DecisionPacket } from "../lib/runtime";
import { inWorkspace } from "../lib/runtime/workspace";
import {
  asConsoleRequest,
  createOtherWorkspace,
  expectDecisionAuditedOnlyIn,
  createPerson,
  decisionFootprint,
  waitingRefundPacket,
} from "./support/decision-gates";
import { startRouteServer } from "./support/route-server";
import { createTestRuntime, expectError, providers, uid } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// A decision link decides one packet once, as the person it was issued to, and only while the packet's
// action is the one it was issued for. Every refusal — expired, used, spliced, tampered, changed action,
// already decided, a person the rules refuse — leaves the packet, its audit and the link as they were.

describe.each(providers())("decision links [%s]", (_provider, url) => {
  let world: World;
  let api: Awaited<ReturnType<typeof startRouteServer>>;
  let t: ReturnType<typeof createTestRuntime>;
  let deps: DecideByLinkDeps;
  const agents: AgentDefinition[] = [];
  const key = decisionLinkKey();
  let now = new Date();

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    world = await startWorld();
    api = await startRouteServer();
    t = createTestRuntime(url, {
      agents,
      tools: worldTools(world.url),
      authorizeDecision: (reviewer, packet) => whyNotDecider(t.db, reviewer, packet),
    });
    deps = {
      db: t.db,
      getPacket: (id) => t.store.getPacket(id, null),
      decide: t.runtime.decidePacket,
      key,
      now: () => now,
    };
  });
  afterAll(async () => {
    await Promise.all([api.close(), world.close()]);
    await t.close();
  });

  const packetFor = (opts: { queue?: string; startedBy?: string } = {}) => waitingRefundPacket(t, world, agents, opts);
  const issue = (
    packet: Pick<DecisionPacket, "id" | "digest" | "workspaceId">,
    userId: string,
    opts: { ttlMs?: number; at?: Date } = {},
  ) => issueDecisionLink(t.db, { packet, userId, key, now: opts.at ?? new Date(), ttlMs: opts.ttlMs });

  /** Runs a refused decision and checks it changed nothing. */
  async function expectRefusedWithoutWrites(packetId: string, body: unknown, code: string) {
    const before = await decisionFootprint(t.db, packetId);
    const error = await expectError(decideByLink(deps, body), code);
    expect(await decisionFootprint(t.db, packetId)).toEqual(before);
    return error;
  }

  it("opens without deciding, then approves the packet once as the person it was issued to", async () => {
    const reviewer = await createPerson(t.db);
    const packet = await packetFor();
    const link = await issue(packet, reviewer.id);
    now = new Date();

    const opened = await openDecisionLink(deps, link.token);
    expect(opened).toMatchObject({
      state: "open",
      person: { email: reviewer.email },
      packet: { id: packet.id, tool: "payments.refund" },
      choices: ["approve", "reject", "redirect"],
    });
    expect((await decisionFootprint(t.db, packet.id)).packet.status).toBe("PENDING"); // a GET never decides

    const decided = await decideByLink(deps, { token: link.token, decision: "approve" });
    expect(decided.packet).toMatchObject({ id: packet.id, status: "APPROVED", decidedBy: reviewer.email });
    const audit = await t.db.auditLog.findFirstOrThrow({ where: { target: packet.id, action: "packets.decide" } });
    expect(audit.actor).toBe(reviewer.email);
    expect(JSON.parse(audit.data)).toMatchObject({ via: `link:${link.id}`, decision: "approve" });
    expect(await openDecisionLink(deps, link.token)).toMatchObject({
      state: "used",
      usedFor: "approve",
      packet: { status: "APPROVED", decidedBy: reviewer.email },
    });

    // The second POST of the same link: refused, nothing written.
    const error = await expectRefusedWithoutWrites(
      packet.id,
      { token: link.token, decision: "reject", reason: "again" },
      "CONFLICT",
    );
    expect(error.userMessage).toMatch(/already used/);
  });

  it("two POSTs of one link at once: exactly one decides", async () => {
    const reviewer = await createPerson(t.db);
    const packet = await packetFor();
    const link = await issue(packet, reviewer.id);
    const results = await Promise.allSettled([
      decideByLink(deps, { token: link.token, decision: "approve" }),
      decideByLink(deps, { token: link.token, decision: "approve" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await t.db.auditLog.count({ where: { target: packet.id, action: "packets.decide" } })).toBe(1);
  });

  it("an expired link says so and writes nothing", async () => {
    const reviewer = await createPerson(t.db);
    const packet = await packetFor();
    const link = await issue(packet, reviewer.id, { ttlMs: 60_000 });
    now = new Date(Date.now() + 61_000);
    try {
      expect(await openDecisionLink(deps, link.token)).toMatchObject({ state: "expired" });
      const error = await expectRefusedWithoutWrites(packet.id, { token: link.token, decision: "approve" }, "CONFLICT");
      expect(error.userMessage).toMatch(/expired/);
    } finally {
      now = new Date();
    }
  });

  it("a link is bound to its person and packet: a token spliced from two links, or a tampered row, is invalid", async () => {
    const [alice, bob] = [await createPerson(t.db), await createPerson(t.db)];
    const [packetA, packetB] = [await packetFor(), await packetFor()];
    const linkA = await issue(packetA, alice.id);
    const linkB = await issue(packetB, bob.id);
    const spliced = `${parseLinkToken(linkA.token)!.id}.${linkB.token.split(".")[1]}`;
    expect(await openDecisionLink(deps, spliced)).toEqual({ state: "invalid" });
    await expectRefusedWithoutWrites(packetA.id, { token: spliced, decision: "approve" }, "NOT_FOUND");
    await expectRefusedWithoutWrites(packetB.id, { token: spliced, decision: "approve" }, "NOT_FOUND");

    // A row moved to another person (or packet) no longer matches its signature.
    const forged = await issue(packetA, alice.id);
    await t.db.decisionLink.update({ where: { id: forged.id }, data: { userId: bob.id } });
    await expectRefusedWithoutWrites(packetA.id, { token: forged.token, decision: "approve" }, "NOT_FOUND");
    // A link re-signed for B's packet with the right key would be a new link: B's packet needs B's own.
    const row = await t.db.decisionLink.findUniqueOrThrow({ where: { id: linkA.id } });
    const forB = linkToken(key, { ...row, packetId: packetB.id });
    await expectRefusedWithoutWrites(packetB.id, { token: forB, decision: "approve" }, "NOT_FOUND");
  });

  it("a tampered token (bad signature) is invalid and tells nothing", async () => {
    const reviewer = await createPerson(t.db);
    const packet = await packetFor();
    const link = await issue(packet, reviewer.id);
    const last = link.token.at(-2) === "A" ? "B" : "A";
    const tampered = `${link.token.slice(0, -2)}${last}${link.token.at(-1)}`;
    for (const token of [tampered, `${link.token}x`, "dl_0.abc", "not-a-token"]) {
      expect(await openDecisionLink(deps, token)).toEqual({ state: "invalid" });
    }
    const error = await expectRefusedWithoutWrites(packet.id, { token: tampered, decision: "approve" }, "NOT_FOUND");
    expect(error.userMessage).toBe("This decision link is not valid.");
  });

  it("a link for an action that changed since it was issued says so and writes nothing", async () => {
    const reviewer = await createPerson(t.db);
    const packet = await packetFor();
    // Issued while the packet's action had another digest (the action was asked again differently since).
    const link = await issue({ ...packet, digest: `${packet.digest.slice(0, -4)}0000` }, reviewer.id);
    expect(await openDecisionLink(deps, link.token)).toEqual({ state: "changed" });
    await expectRefusedWithoutWrites(packet.id, { token: link.token, decision: "approve" }, "APPROVAL_MISMATCH");
  });

  it("a link for a packet already decided (in the console) says so and writes nothing", async () => {
    const [reviewer, other] = [await createPerson(t.db), await createPerson(t.db)];
    const packet = await packetFor();
    const link = await issue(packet, reviewer.id);
    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: other.email,
      input: { decision: "reject", reason: "not this one" },
    });
    expect(await openDecisionLink(deps, link.token)).toMatchObject({
      state: "decided",
      packet: { status: "REJECTED", decidedBy: other.email },
    });
    await expectRefusedWithoutWrites(packet.id, { token: link.token, decision: "approve" }, "PACKET_ALREADY_DECIDED");
  });

  it("the runtime's rules still apply: a queue's deciders and separation of duties refuse, and the link stays usable", async () => {
    const [reviewer, named] = [await createPerson(t.db), await createPerson(t.db)];
    const queue = uid("restricted");
    await putQueueDeciders(t.db, { queue, input: { people: [named.email] }, by: "admin@example.com" });
    const restricted = await packetFor({ queue });
    const link = await issue(restricted, reviewer.id);
    const error = await expectRefusedWithoutWrites(
      restricted.id,
      { token: link.token, decision: "approve" },
      "FORBIDDEN",
    );
    expect(error.userMessage).toMatch(/decided by/);
    expect((await t.db.decisionLink.findUniqueOrThrow({ where: { id: link.id } })).usedAt).toBeNull();

    const ownRun = await packetFor({ startedBy: reviewer.email });
    const own = await issue(ownRun, reviewer.id);
    await expectRefusedWithoutWrites(ownRun.id, { token: own.token, decision: "approve" }, "FORBIDDEN");
    // Rejecting one's own request is allowed: the link was released by the refusal and still works.
    const rejected = await decideByLink(deps, {
      token: own.token,
      decision: "reject",
      reason: "I asked for the wrong amount",
    });
    expect(rejected.packet).toMatchObject({ status: "REJECTED", decidedBy: reviewer.email });
  });

  it("bad input gets a 400 naming the field, and writes nothing", async () => {
    const reviewer = await createPerson(t.db);
    const packet = await packetFor();
    const link = await issue(packet, reviewer.id);
    const noReason = await expectRefusedWithoutWrites(
      packet.id,
      { token: link.token, decision: "reject" },
      "INVALID_INPUT",
    );
    expect(noReason.fieldErrors).toHaveProperty("reason");
    const noToken = await expectRefusedWithoutWrites(packet.id, { decision: "approve" }, "INVALID_INPUT");
    expect(noToken.fieldErrors).toHaveProperty("token");
    const edit = await expectRefusedWithoutWrites(
      packet.id,
      { token: link.token, decision: "edit", args: {} },
      "INVALID_INPUT",
    );
    expect(edit.fieldErrors).toHaveProperty("decision");

    const res = await fetch(`${api.url}/api/decision-links`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: link.token, decision: "redirect" }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.fieldErrors).toHaveProperty("instruction");
    expect((await decisionFootprint(t.db, packet.id)).packet.status).toBe("PENDING");
  });

  it("a link to a packet of another workspace decides it in that workspace, though the public route enters none", async () => {
    const team = await createOtherWorkspace(t.db);
    // A reviewer of that team only: in the default workspace they may decide nothing.
    const reviewer = await createPerson(t.db, "reviewer", { onlyIn: team.id });
    const packet = await inWorkspace(team.id, () => packetFor());
    expect(packet.workspaceId).toBe(team.id);
    const link = await inWorkspace(team.id, () => issue(packet, reviewer.id, { at: new Date() }));

    // The public route, as a browser posts to it: no session, no workspace in its URL.
    const res = await asConsoleRequest(() =>
      fetch(`${api.url}/api/decision-links`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: link.token, decision: "approve" }),
      }),
    );
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      packet: { id: packet.id, status: "APPROVED", decidedBy: reviewer.email },
      decidedAs: reviewer.email,
    });
    expect(await t.store.getPacket(packet.id, team.id)).toMatchObject({ status: "APPROVED", workspaceId: team.id });

    await expectDecisionAuditedOnlyIn(t.db, team.id, {
      packetId: packet.id,
      reviewer: reviewer.email,
      via: `link:${link.id}`,
    });
    expect(await t.db.decisionLink.findUniqueOrThrow({ where: { id: link.id } })).toMatchObject({
      workspaceId: team.id,
      usedFor: "approve",
    });
  });

  it("over HTTP: the page's form POST decides and sends the browser back to the link, which then shows the outcome", async () => {
    const reviewer = await createPerson(t.db);
    const packet = await packetFor();
    const link = await issue(packet, reviewer.id, { at: new Date() });
    const form = new URLSearchParams({
      token: link.token,
      decision: "redirect",
      instruction: "Refund half, then ask the customer.",
    });
    const res = await fetch(`${api.url}/api/decision-links`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
      redirect: "manual",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/d/${link.token}?outcome=done`);
    expect(await t.store.getPacket(packet.id, null)).toMatchObject({ status: "REDIRECTED", decidedBy: reviewer.email });

    // The same form again: 303 back with the refusal's code; nothing more written.
    const before = await decisionFootprint(t.db, packet.id);
    const again = await fetch(`${api.url}/api/decision-links`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
      redirect: "manual",
    });
    expect(again.headers.get("location")).toBe(`/d/${link.token}?outcome=CONFLICT`);
    expect(await decisionFootprint(t.db, packet.id)).toEqual(before);
  });
});
