import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outreachAgent } from "../../lib/agents";
import type { RunRecord } from "../../lib/runtime";
import { startSandboxServer, type SandboxServer } from "../../lib/sandbox/http-server";
import { seedSandbox } from "../../lib/sandbox/seed";
import { createBuiltInTools } from "../../lib/tools";
import { createTestRuntime, manualClock, providers, uid } from "../support/runtime";

// outreach-agent end to end against the real sandbox over HTTP: research, a draft, a durable timer
// (a manual clock stands in for the days), a second search that finds the new source, and an email a
// person approves. Each test researches a topic of its own (docs with random ids and words).

type Entry = { system: string; action: string; operationId: string | null; data: Record<string, unknown> };

const DAY = 86_400_000;

describe.each(providers())("outreach-agent [%s]", (_provider, url) => {
  const agent = { ...outreachAgent.definition, slug: uid("outreach-agent") };
  const clock = manualClock();
  let t: ReturnType<typeof createTestRuntime>;
  let sandbox: SandboxServer;

  const get = async (path: string) => (await fetch(sandbox.url + path)).json();
  const ledger = async (runId: string): Promise<Entry[]> =>
    (await get(`/ledger?runId=${encodeURIComponent(runId)}`)).entries;
  const systems = (entries: Entry[]) => entries.map((e) => `${e.system}.${e.action}`);
  const drain = () => t.runtime.createWorker().drain();
  const pending = async (runId: string) => (await t.store.findPackets({ runId, status: ["PENDING"] }))[0];
  async function putDoc(id: string, doc: { title?: string; body: string }) {
    const res = await fetch(`${sandbox.url}/docs/${id}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(doc),
    });
    expect(res.ok).toBe(true);
  }
  async function decide(runId: string, input: Record<string, unknown>): Promise<RunRecord> {
    await t.runtime.decidePacket({ packetId: (await pending(runId)).id, reviewer: "reviewer@test", input });
    await drain();
    return t.runtime.getRun(runId);
  }

  beforeAll(async () => {
    t = createTestRuntime(url, {
      agents: [agent],
      tools: createBuiltInTools({ sandboxUrl: () => sandbox.url, timeoutMs: 2000 }),
      clock,
    });
    sandbox = await startSandboxServer(t.db);
    await seedSandbox(t.db);
    for (const rule of outreachAgent.defaultPermissions)
      await t.runtime.permissions.put({ ...rule, agent: agent.slug }, { by: "admin@test" });
  });
  afterAll(async () => {
    await sandbox.close();
    await t.close();
  });

  it("drafts, sleeps three days, finds the source published meanwhile, and sends once approved: one draft, one email", async () => {
    const topic = uid("quasar-sync");
    await putDoc(uid("doc_t"), { title: `Roadmap: ${topic}`, body: `${topic} is planned for next quarter.` });
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { to: "ada@example.com", query: topic },
      startedBy: "marketing@test",
    });
    await drain();

    const sleeping = await t.runtime.getRun(run.id);
    expect(sleeping.status).toBe("SLEEPING");
    expect(sleeping.wakeAt!.getTime() - clock.now().getTime()).toBe(3 * DAY); // the default wait
    expect(sleeping.state.facts.find((f) => f.key === "draft")).toMatchObject({
      kind: "receipt",
      source: { receiptId: expect.stringMatching(/^dft_/) },
    });
    expect(systems(await ledger(run.id))).toEqual(["drafts.create"]);

    // While it sleeps, the source it waits for is published; a worker pass before the timer does nothing.
    const release = uid("doc_t");
    await putDoc(release, { title: `Release notes: ${topic}`, body: `${topic} is available today on every plan.` });
    clock.advance(DAY);
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("SLEEPING");

    clock.advance(2 * DAY);
    await drain();
    const waiting = await t.runtime.getRun(run.id);
    expect(waiting.status).toBe("WAITING_APPROVAL");
    const email = waiting.state.facts.find((f) => f.key === "email")!;
    expect(email).toMatchObject({ kind: "inference", value: { to: "ada@example.com", newSources: [release] } });
    const packet = await pending(run.id);
    expect(packet.queue).toBe("outreach");
    expect(packet.content.impact).toBe(`emails ada@example.com: "Release notes: ${topic}"`);
    expect(packet.content.evidence.map((e) => e.key)).toEqual(["recheck", "email"]);
    expect(packet.content.uncertainty).toBe("low");

    const done = await decide(run.id, { decision: "approve" });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({
      sent: true,
      to: "ada@example.com",
      messageId: expect.stringMatching(/^msg_/),
      draftId: expect.stringMatching(/^dft_/),
      newSources: [release],
    });
    expect(done.state.plan.every((s) => s.status === "done")).toBe(true);
    const effects = await ledger(run.id);
    expect(systems(effects)).toEqual(["drafts.create", "mail.send"]);
    const { message } = await get(`/mail/sent?operationId=${effects[1].operationId}`);
    expect(message.body).toContain(`"Release notes: ${topic}" was just published`);
  });

  it("answers a ticket; a person asks it to wait longer, then rejects the email: nothing is sent", async () => {
    const topic = uid("nebula-export");
    const doc = uid("doc_t");
    await putDoc(doc, { title: `Guide: ${topic}`, body: `How to use ${topic}.` });
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { ticketId: "tkt_2001", query: topic, waitMs: 30_000 },
    });
    await drain();
    clock.advance(30_000);
    await drain();
    const first = await pending(run.id);
    expect(first.content.impact).toBe('emails ada@example.com: "Re: Refund for order ord_1001"');
    expect(first.content.evidence.map((e) => e.key)).toEqual(["ticket", "recheck", "email"]);
    expect(first.content.uncertainty).toBe("medium"); // nothing new while it waited

    // "Wait two more days": another durable timer, another search, a new proposal.
    const redirected = await decide(run.id, {
      decision: "redirect",
      instruction: "Wait 2 days for the updated guide.",
    });
    expect(redirected.status).toBe("SLEEPING");
    expect(redirected.wakeAt!.getTime() - clock.now().getTime()).toBe(2 * DAY);
    await putDoc(doc, { body: `How to use ${topic}, now with scheduling.` });
    clock.advance(2 * DAY);
    await drain();
    const second = await pending(run.id);
    expect(second.id).not.toBe(first.id);
    expect((second.args as { body: string }).body).toContain(`"Guide: ${topic}" was just updated`);

    const done = await decide(run.id, { decision: "reject", reason: "Legal has to review this wording." });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({
      sent: false,
      ticketId: "tkt_2001",
      draftId: expect.stringMatching(/^dft_/),
    });
    expect((done.state.output as { reason: string }).reason).toContain("Legal has to review this wording.");
    expect(systems(await ledger(run.id))).toEqual(["drafts.create"]);
  });

  it("has an example input that finds a source in the seeded world", async () => {
    const input = agent.input.parse(outreachAgent.exampleInput) as { query: string; waitMs: number };
    expect(input.waitMs).toBe(30_000);
    const { docs } = await get(`/docs?query=${encodeURIComponent(input.query)}`);
    expect(docs.map((d: { id: string }) => d.id)).toContain("doc_release_4_2");
  });
});
