import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SessionUser } from "../lib/auth/rbac";
import { createDb } from "../lib/db";
import { z } from "zod";
import { createModelPolicy } from "../lib/agents/model-policy";
import { createLiveFeed, liveFeedOf, type TokenChunk } from "../lib/live/live-feed";
import type { AgentDefinition, ToolDefinition } from "../lib/runtime";
import { createTether } from "../lib/tether";
import type { RunHead, TimelineEvent } from "../lib/queries/run-events";
import { scriptedAgent } from "./support/agents";
import { startRouteServer } from "./support/route-server";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { streamingModel } from "./support/streaming-model";
import { sseReader, type SseEvent } from "./support/sse";
import { until } from "./support/until";

// The console's live streams over real HTTP (the route handlers on a node:http server): a run's trace events
// arrive in order as they commit, driven by this process's live feed; Last-Event-ID resumes without a gap;
// a client that hangs up leaves no listener behind; the run is authorized like the other console reads
// (no session 401, no scope 403, an unknown run 404, all as JSON before any stream); the inbox's change
// feed arrives on the same mechanism; a model step's tokens (the streaming mock model) arrive before its events.

const session = vi.hoisted(() => ({ user: null as SessionUser | null }));
vi.mock("@/lib/auth/session", () => ({ getCurrentUser: async () => session.user }));

const ENV = ["DATABASE_URL", "TETHER_RATE_LIMIT", "TETHER_EMBEDDED_WORKER"] as const;

describe.each(providers())("live streams [%s]", (_provider, url) => {
  const saved: Record<string, string | undefined> = {};
  const s = uid("live");
  const agent = scriptedAgent(
    `${s}-waits`,
    [],
    [
      { kind: "wait_event", eventType: "go" },
      { kind: "wait_event", eventType: "go" },
      { kind: "complete", output: { done: true } },
    ],
  );
  let t: ReturnType<typeof createTestRuntime>;
  let server: Awaited<ReturnType<typeof startRouteServer>>;

  beforeAll(async () => {
    for (const key of ENV) saved[key] = process.env[key];
    process.env.DATABASE_URL = url; // the route handlers' getDb() follows it: the same database, so the same live feed
    process.env.TETHER_RATE_LIMIT = "off";
    process.env.TETHER_EMBEDDED_WORKER = "0";
    t = createTestRuntime(url, { agents: [agent] });
    server = await startRouteServer();
    session.user = { id: `u-${s}`, email: `op-${s}@example.com`, name: null, role: "operator" };
  });
  afterAll(async () => {
    await server?.close();
    session.user = null;
    for (const key of ENV)
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    await t?.close();
  });

  const open = (path: string, init: { headers?: Record<string, string>; signal?: AbortSignal } = {}) =>
    fetch(server.url + path, { headers: { accept: "text/event-stream", ...init.headers }, signal: init.signal });

  async function startWaitingRun() {
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await t.runtime.createWorker().drain();
    return run.id;
  }
  const go = async (runId: string, key: string) => {
    await t.runtime.deliverSignal(runId, { type: "go", dedupKey: key, payload: {} });
    await t.runtime.createWorker().drain();
  };
  const traceSeqs = (messages: SseEvent[]) =>
    messages.filter((m) => m.event === "trace").map((m) => (m.data as TimelineEvent).seq);

  it("sends the trace from after=, then each event as it commits, in order, and the run's head as it moves", async () => {
    const runId = await startWaitingRun();
    const abort = new AbortController();
    const res = await open(`/api/console/runs/${runId}/stream?after=0`, { signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const stream = sseReader(res);
    const seen: SseEvent[] = [];
    const head = await stream.nextOf("run", seen);
    const opening = traceSeqs(seen);
    expect(opening).toEqual(Array.from({ length: (head.data as RunHead).eventSeq }, (_, i) => i + 1));
    expect((head.data as RunHead).status).toBe("WAITING_EVENT");
    for (const m of seen) expect(m.id).toBe(String((m.data as TimelineEvent).seq)); // the SSE id is the seq

    // The run moves twice; every new event arrives once, after the ones before it, then the finished head.
    await go(runId, "1");
    await go(runId, "2");
    const later: SseEvent[] = [];
    for (;;) {
      const m = await stream.nextOf("run", later);
      if ((m.data as RunHead).status === "COMPLETED") break;
    }
    const all = [...opening, ...traceSeqs(later)];
    const stored = await t.db.traceEvent.findMany({ where: { runId }, orderBy: { seq: "asc" }, select: { seq: true } });
    expect(all).toEqual(stored.map((e) => e.seq));
    abort.abort();
  });

  it("a commit by another process (a feed this one does not hear) arrives by the stream's fallback read", async () => {
    const runId = await startWaitingRun();
    // Another process: its own engine on the same database, with a live feed of its own.
    const other = createTether({
      db: createDb(url),
      agents: [agent],
      tools: [],
      registeredTools: false,
      live: createLiveFeed(),
    });
    const abort = new AbortController();
    const stream = sseReader(await open(`/api/console/runs/${runId}/stream`, { signal: abort.signal }));
    await stream.nextOf("run");
    await other.runtime.deliverSignal(runId, { type: "go", dedupKey: "elsewhere", payload: {} });
    await other.runtime.createWorker().drain();
    const later: SseEvent[] = [];
    const moved = await stream.nextOf("run", later);
    expect((moved.data as RunHead).eventSeq).toBe(traceSeqs(later).at(-1));
    expect(traceSeqs(later).length).toBeGreaterThan(0);
    abort.abort();
    await other.db.$disconnect();
  });

  it("resumes after Last-Event-ID without a gap or a repeat", async () => {
    const runId = await startWaitingRun();
    await go(runId, "1");
    const total = (await t.db.run.findUniqueOrThrow({ where: { id: runId } })).eventSeq;
    expect(total).toBeGreaterThan(3);
    const abort = new AbortController();
    const res = await open(`/api/console/runs/${runId}/stream?after=0`, {
      headers: { "last-event-id": "2" },
      signal: abort.signal,
    });
    const seen: SseEvent[] = [];
    await sseReader(res).nextOf("run", seen);
    expect(traceSeqs(seen)).toEqual(Array.from({ length: total - 2 }, (_, i) => i + 3));
    abort.abort();
  });

  it("without after= starts at the run's newest event and forwards a model step's tokens", async () => {
    const runId = await startWaitingRun();
    const abort = new AbortController();
    const stream = sseReader(await open(`/api/console/runs/${runId}/stream`, { signal: abort.signal }));
    const seen: SseEvent[] = [];
    await stream.nextOf("run", seen);
    expect(traceSeqs(seen)).toEqual([]);
    liveFeedOf(t.db).publishTokens(runId, { step: 1, attempt: 1, kind: "text", delta: "Hel" });
    liveFeedOf(t.db).publishTokens(runId, { step: 1, attempt: 1, kind: "text", delta: "lo" });
    const tokens = [await stream.nextOf("token"), await stream.nextOf("token")];
    expect(tokens.map((m) => (m.data as { delta: string }).delta).join("")).toBe("Hello");
    expect(tokens.every((m) => m.id === undefined)).toBe(true); // not stored: no id to resume from
    abort.abort();
  });

  it("a model step's tokens stream over the run's stream while it runs, before the step's committed events", async () => {
    const tools: ToolDefinition[] = [
      {
        name: "notes.read",
        description: "Read a note",
        capability: "read",
        semantics: "pure-read",
        input: z.object({ noteId: z.string() }),
        impact: () => "reads a note",
        run: async () => ({ text: "Ship on Friday." }),
      },
    ];
    const thinker: AgentDefinition = {
      slug: `${s}-thinks`,
      version: "1",
      name: "Reader",
      description: "Reads a note",
      instructions: "Read the note, then complete.",
      input: z.object({ noteId: z.string() }),
      tools: ["notes.read"],
      policy: createModelPolicy({ model: streamingModel(), tools, tokens: liveFeedOf(t.db) }),
    };
    t.runtime.context.agents.set(thinker.slug, thinker);
    t.runtime.context.tools.set("notes.read", tools[0]);
    await grant(t.runtime, thinker);
    const runId = (await t.runtime.startRun({ agent: thinker.slug, input: { noteId: "n-1" } })).run.id;
    const abort = new AbortController();
    const stream = sseReader(await open(`/api/console/runs/${runId}/stream?after=0`, { signal: abort.signal }));
    await stream.nextOf("run");
    await t.runtime.createWorker().drain();
    const seen: SseEvent[] = [];
    for (;;) {
      const m = await stream.nextOf("run", seen);
      if ((m.data as RunHead).status === "COMPLETED") break;
    }
    abort.abort();
    const decisions = seen.filter((m) => m.event === "trace" && (m.data as TimelineEvent).type === "model.decision");
    expect(decisions).toHaveLength(2);
    for (const decision of decisions) {
      const { step, data } = decision.data as TimelineEvent;
      const at = seen.indexOf(decision);
      const tokens = seen.filter((m, i) => m.event === "token" && (m.data as TokenChunk).step === step && i < at);
      expect(tokens.length).toBeGreaterThan(2);
      expect(
        tokens
          .map((m) => m.data as TokenChunk)
          .filter((c) => c.kind === "text")
          .map((c) => c.delta)
          .join(""),
      ).toBe((data.raw as { text: string }).text);
    }
    expect(seen.filter((m) => m.event === "token").every((m) => m.id === undefined)).toBe(true);
  });

  it("a client that hangs up closes its stream and leaves no listener on the live feed", async () => {
    const runId = await startWaitingRun();
    const feed = liveFeedOf(t.db);
    const abort = new AbortController();
    const stream = sseReader(await open(`/api/console/runs/${runId}/stream`, { signal: abort.signal }));
    await stream.nextOf("run");
    expect(feed.listenerCount(runId)).toBe(1);
    abort.abort();
    await until("the stream's listener is gone", () => feed.listenerCount(runId) === 0);
  });

  // Every role may read runs and packets (lib/auth/rbac.ts): a person is refused a run by the read model (404).
  it("refuses as JSON before any stream: no session 401, an unknown run 404", async () => {
    const runId = await startWaitingRun();
    const as = async (user: SessionUser | null, path: string) => {
      const was = session.user;
      session.user = user;
      try {
        const res = await open(path);
        return {
          status: res.status,
          type: res.headers.get("content-type"),
          body: (await res.json()) as { error?: { code: string } },
        };
      } finally {
        session.user = was;
      }
    };
    for (const path of [`/api/console/runs/${runId}/stream`, "/api/console/packets/stream"]) {
      const anonymous = await as(null, path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.type).toMatch(/json/);
    }
    const unknown = await as(session.user, `/api/console/runs/run_${s}_unknown/stream`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe("NOT_FOUND");
  });

  it("the inbox's change feed: a ready cursor, then a packet written and told arrives as news", async () => {
    const abort = new AbortController();
    const stream = sseReader(await open("/api/console/packets/stream", { signal: abort.signal }));
    const ready = await stream.nextOf("ready");
    expect(ready.id).toMatch(/^\d+$/);
    const runId = await startWaitingRun();
    const packetId = `pkt_${s}_1`;
    await t.db.decisionPacket.create({
      data: {
        id: packetId,
        runId,
        step: 1,
        kind: "APPROVAL",
        tool: `${s}.tool`,
        args: "{}",
        digest: "d",
        status: "PENDING",
        requestedBy: "test",
        packet: "{}",
        requiredApprovals: 1,
        changedAt: new Date(),
      },
    });
    liveFeedOf(t.db).packetsChanged();
    const news = await stream.nextOf("changes");
    expect((news.data as { changes: Array<{ id: string }> }).changes.map((c) => c.id)).toContain(packetId);
    expect(Number(news.id)).toBeGreaterThanOrEqual(Number(ready.id));
    abort.abort();
  });
});
