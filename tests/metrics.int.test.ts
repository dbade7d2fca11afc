import { getMetricsFromIterator, type PromData, type PromHistogramData, type PromMetrics } from "prom2javascript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../lib/api/tokens";
import { collectMetrics } from "../lib/metrics/collect";
import { formatPrometheus, PROMETHEUS_CONTENT_TYPE } from "../lib/metrics/prometheus";
import type { AgentDefinition } from "../lib/runtime";
import { refundAgent, scriptedAgent } from "./support/agents";
import { createTestRuntime, expectError, grant, manualClock, providers, uid } from "./support/runtime";
import { startRouteServer } from "./support/route-server";
import { createPersonWithToken } from "./support/tokens";
import { worldTools } from "./support/tools";
import { until } from "./support/until";
import { startWorld, type World } from "./support/world";

// GET /api/metrics over real HTTP on both databases: read back with a Prometheus text-format parser from npm
// (prom2javascript: it refuses a line it cannot read, groups a histogram's series by their labels and checks
// each ends in +Inf = _count), and the series move when a run moves through the runtime — started, parked on
// a packet, decided, completed. A token without metrics:read is refused; a label value with quotes,
// backslashes or newlines (an agent, a queue, a worker) stays one line.

const parsePrometheus = (text: string): Promise<PromMetrics> =>
  getMetricsFromIterator(text.split("\n")[Symbol.iterator]());

const sameLabels = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);
const seriesOf = <T extends { labels: Record<string, string> }>(
  scrape: PromMetrics,
  name: string,
  labels: Record<string, string>,
) => {
  const family = scrape[name];
  if (!family) throw new Error(`no family ${name}`);
  return (family.data as unknown as T[]).find((series) => sameLabels(series.labels, labels));
};
/** A gauge's value for exactly these labels; 0 when the series is absent (nothing to count). */
const value = (scrape: PromMetrics, name: string, labels: Record<string, string> = {}) =>
  seriesOf<PromData>(scrape, name, labels)?.value ?? 0;
const histogram = (scrape: PromMetrics, name: string, labels: Record<string, string>) => {
  const series = seriesOf<PromHistogramData>(scrape, name, labels);
  return { count: series?.count ?? 0, sum: series?.sum ?? 0, buckets: series?.buckets ?? {} };
};
/** A histogram's buckets in the order of their bounds (an object lists integer-like keys first). */
const bucketsInOrder = (buckets: Record<string, number>) =>
  Object.entries(buckets)
    .map(([le, count]) => [le === "+Inf" ? Infinity : Number(le), count] as const)
    .sort((a, b) => a[0] - b[0]);

describe.each(providers())("GET /api/metrics [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  const agents: AgentDefinition[] = [];
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route's database
    world = await startWorld();
    t = createTestRuntime(url, { agents, tools: worldTools(world.url) });
    server = await startRouteServer();
    tokens.metrics = (await createPersonWithToken(t.db, { role: "operator", scopes: ["metrics:read"] })).token;
    tokens.admin = (await createPersonWithToken(t.db, { role: "admin", scopes: ["admin"] })).token;
    tokens.operator = (
      await createPersonWithToken(t.db, { role: "operator", scopes: ["runs:read", "runs:write"] })
    ).token;
    tokens.reviewer = (
      await createPersonWithToken(t.db, { role: "reviewer", scopes: ["runs:read", "packets:decide"] })
    ).token;
  });
  afterAll(async () => {
    await server.close();
    await world.close();
    await t.close();
  });

  const get = async (token?: string) => {
    const res = await fetch(`${server.url}/api/metrics`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: res.status, contentType: res.headers.get("content-type"), text: await res.text() };
  };
  const scrape = async (): Promise<PromMetrics> => {
    const res = await get(tokens.metrics);
    expect(res.status).toBe(200);
    return parsePrometheus(res.text);
  };
  const register = (agent: AgentDefinition) => {
    agents.push(agent);
    t.runtime.context.agents.set(agent.slug, agent);
    return agent;
  };
  const drain = () => t.runtime.createWorker().drain();

  it("needs a token with metrics:read: none 401, without the scope 403; operators' and admins' tokens read it, reviewers cannot hold it", async () => {
    expect(await get()).toMatchObject({ status: 401 });
    expect(JSON.parse((await get()).text)).toMatchObject({ error: { code: "UNAUTHENTICATED" } });
    expect(await get("tth_not_a_token")).toMatchObject({ status: 401 });
    for (const token of [tokens.operator, tokens.reviewer]) {
      const refused = await get(token);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.text)).toMatchObject({ error: { code: "FORBIDDEN" } });
    }
    expect(await get(tokens.metrics)).toMatchObject({ status: 200, contentType: PROMETHEUS_CONTENT_TYPE });
    expect(await get(tokens.admin)).toMatchObject({ status: 200, contentType: PROMETHEUS_CONTENT_TYPE });
    const reviewer = await createPersonWithToken(t.db, { role: "reviewer", scopes: ["runs:read"] });
    const beyond = await expectError(
      createApiToken(t.db, { name: "scraper", scopes: ["metrics:read"] }, { createdBy: reviewer.email }),
      "INVALID_INPUT",
    );
    expect(beyond.fieldErrors).toHaveProperty("scopes");
  });

  it("moves when runs move: started, parked on a packet, decided, completed", async () => {
    const agent = register(refundAgent(uid("metrics-refund")));
    const queue = uid('finance "EU"\nqueue');
    await grant(t.runtime, agent, { "payments.refund": { effect: "require_approval", queue } });
    const orderId = uid("order");
    world.orders.set(orderId, { id: orderId, amountCents: 24_000, status: "paid" });
    const before = await scrape();

    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId, email: "bob@example.com" },
      startedBy: "ops@example.com",
    });
    const queued = await scrape();
    expect(value(queued, "tether_runs", { status: "QUEUED" })).toBe(
      value(before, "tether_runs", { status: "QUEUED" }) + 1,
    );
    expect(value(queued, "tether_runs_active", { status: "QUEUED", agent: agent.slug })).toBe(1);
    expect(value(queued, "tether_runs_created", { status: "QUEUED", agent: agent.slug })).toBe(1);

    // the worker reads the order, then parks on the refund's packet: the read (a free pure read) is carried into
    // the park's commit, two checkpoints at one instant, the first commit after the claim (so no duration yet)
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_APPROVAL");
    const waiting = await scrape();
    expect(value(waiting, "tether_runs_active", { status: "QUEUED", agent: agent.slug })).toBe(0);
    expect(value(waiting, "tether_runs_active", { status: "WAITING_APPROVAL", agent: agent.slug })).toBe(1);
    expect(value(waiting, "tether_packets_pending", { queue, age: "under_5m" })).toBe(1);
    expect(value(waiting, "tether_packets_pending", { queue, age: "over_24h" })).toBe(0);
    expect(value(waiting, "tether_packets_pending_oldest_age_seconds", { queue })).toBeGreaterThanOrEqual(0);
    expect(value(waiting, "tether_packets_pending_oldest_age_seconds", { queue })).toBeLessThan(300);
    expect(value(waiting, "tether_step_commits", { agent: agent.slug })).toBe(2);
    expect(histogram(waiting, "tether_step_duration_seconds", { agent: agent.slug }).count).toBe(0);
    // two days on, the same packet is in the oldest band (the collector reads the clock it is given)
    const later = await parsePrometheus(
      formatPrometheus(await collectMetrics(t.db, new Date(Date.now() + 2 * 86_400_000))),
    );
    expect(value(later, "tether_packets_pending", { queue, age: "under_5m" })).toBe(0);
    expect(value(later, "tether_packets_pending", { queue, age: "over_24h" })).toBe(1);
    expect(value(later, "tether_packets_pending_oldest_age_seconds", { queue })).toBeGreaterThan(2 * 86_400 - 60);

    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("COMPLETED");
    const done = await scrape();
    expect(value(done, "tether_runs", { status: "COMPLETED" })).toBe(
      value(before, "tether_runs", { status: "COMPLETED" }) + 1,
    );
    expect(value(done, "tether_runs_active", { status: "WAITING_APPROVAL", agent: agent.slug })).toBe(0);
    expect(value(done, "tether_runs_created", { status: "COMPLETED", agent: agent.slug })).toBe(1);
    expect(value(done, "tether_packets_pending", { queue, age: "under_5m" })).toBe(0);
    const decided = histogram(done, "tether_packet_decision_seconds", { queue, status: "APPROVED" });
    expect(decided).toMatchObject({ count: 1, buckets: expect.objectContaining({ "+Inf": 1, "604800": 1 }) });
    expect(decided.sum).toBeGreaterThanOrEqual(0);
    for (const tool of ["payments.refund", "mail.send"]) {
      expect(value(done, "tether_effects", { tool, status: "SUCCEEDED" })).toBe(
        value(before, "tether_effects", { tool, status: "SUCCEEDED" }) + 1,
      );
    }
    // the refund after the decision, the mail's intent and result, the completion: more commits, more of them measured
    expect(value(done, "tether_step_commits", { agent: agent.slug })).toBeGreaterThan(
      value(waiting, "tether_step_commits", { agent: agent.slug }),
    );
    const steps = histogram(done, "tether_step_duration_seconds", { agent: agent.slug });
    expect(steps.count).toBeGreaterThan(1);
    expect(steps.count).toBeLessThan(value(done, "tether_step_commits", { agent: agent.slug }));
  });

  it("leaves waiting out of step durations: an approval an hour later makes no hour-long step, and an hour-long decision", async () => {
    // a clock that moves 5 ms each time it is read (so the commits of one hold are apart), and an hour at once
    const manual = manualClock();
    const clock = {
      now: () => {
        manual.advance(5);
        return manual.now();
      },
    };
    const timed = createTestRuntime(url, { clock, agents, tools: worldTools(world.url) });
    try {
      const agent = register(refundAgent(uid("metrics-wait")));
      timed.runtime.context.agents.set(agent.slug, agent);
      const queue = uid("waits");
      await grant(timed.runtime, agent, { "payments.refund": { effect: "require_approval", queue } });
      const orderId = uid("order");
      world.orders.set(orderId, { id: orderId, amountCents: 24_000, status: "paid" });
      const { run } = await timed.runtime.startRun({
        agent: agent.slug,
        input: { orderId, email: "bob@example.com" },
        startedBy: "ops@example.com",
      });
      await timed.runtime.createWorker().drain();
      manual.advance(3_600_000);
      const [packet] = await timed.store.findPackets({ runId: run.id, status: ["PENDING"] });
      await timed.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "rita@example.com",
        input: { decision: "approve" },
      });
      await timed.runtime.createWorker().drain();
      expect((await timed.runtime.getRun(run.id)).status).toBe("COMPLETED");
      const commits = await timed.db.checkpoint.findMany({
        where: { runId: run.id },
        orderBy: { seq: "asc" },
        select: { createdAt: true },
      });
      expect(commits.at(-1)!.createdAt.getTime() - commits[0].createdAt.getTime()).toBeGreaterThanOrEqual(3_600_000);

      const scrape = await parsePrometheus(
        formatPrometheus(await collectMetrics(timed.db, new Date(manual.now().getTime() + 1_000))),
      );
      const steps = histogram(scrape, "tether_step_duration_seconds", { agent: agent.slug });
      expect(steps.count).toBeGreaterThan(1);
      expect(steps.buckets["300"]).toBe(steps.count); // every measured step took under 5 minutes
      expect(steps.sum).toBeLessThan(300);
      const decided = histogram(scrape, "tether_packet_decision_seconds", { queue, status: "APPROVED" });
      expect(decided.count).toBe(1);
      expect(decided.sum).toBeCloseTo(3_600, 1);
      expect(decided.buckets).toMatchObject({ "1800": 0, "7200": 1 });
    } finally {
      await timed.close();
    }
  });

  it("counts effects in doubt however old while their run is not ended", async () => {
    const agent = register(scriptedAgent(uid("metrics-doubt"), [], []));
    const tool = uid("tool.unsafe");
    const open = (await t.runtime.startRun({ agent: agent.slug, input: {} })).run;
    const ended = (await t.runtime.startRun({ agent: agent.slug, input: {} })).run;
    await t.runtime.cancelRun({ runId: ended.id, by: "test" });
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
    await t.db.effectIntent.createMany({
      data: [open, ended].map((run) => ({
        id: uid("op"),
        runId: run.id,
        step: 0,
        tool,
        args: "{}",
        semantics: "unsafe",
        status: "UNKNOWN",
        createdAt: threeDaysAgo,
      })),
    });
    expect(value(await scrape(), "tether_effects", { tool, status: "UNKNOWN" })).toBe(1);
    await t.runtime.cancelRun({ runId: open.id, by: "test" });
    expect(value(await scrape(), "tether_effects", { tool, status: "UNKNOWN" })).toBe(0);
  });

  it("counts leases by worker: held, and expired without a release", async () => {
    const agent = register(scriptedAgent(uid("metrics-lease"), [], []));
    const owner = `worker "${uid()}"\nhost\\1`;
    const held = (await t.runtime.startRun({ agent: agent.slug, input: {} })).run;
    const lapsed = (await t.runtime.startRun({ agent: agent.slug, input: {} })).run;
    expect(await t.store.claimRun({ owner, now: new Date(), leaseMs: 60_000, runId: held.id })).not.toBeNull();
    expect(await t.store.claimRun({ owner, now: new Date(), leaseMs: 1, runId: lapsed.id })).not.toBeNull();
    const leased = await until(scrape, {
      what: "the 1 ms lease counts as expired",
      holds: (m) => value(m, "tether_leases_expired", { owner }) === 1,
    });
    expect(value(leased, "tether_leases", { owner })).toBe(1);
    expect(value(leased, "tether_leases_expired", { owner })).toBe(1);
    for (const run of [held, lapsed]) await t.runtime.cancelRun({ runId: run.id, by: "test" });
    const released = await scrape();
    expect(value(released, "tether_leases", { owner })).toBe(0);
    expect(value(released, "tether_leases_expired", { owner })).toBe(0);
  });

  it("parses as Prometheus text: every family typed and explained; histograms cumulative, ending in +Inf = _count", async () => {
    const { text } = await get(tokens.metrics);
    expect(text.endsWith("\n")).toBe(true);
    const families = await parsePrometheus(text);
    expect(Object.keys(families)).toEqual([
      "tether_runs",
      "tether_runs_active",
      "tether_runs_created",
      "tether_step_commits",
      "tether_step_duration_seconds",
      "tether_packets_pending",
      "tether_packets_pending_oldest_age_seconds",
      "tether_packet_decision_seconds",
      "tether_effects",
      "tether_leases",
      "tether_leases_expired",
      "tether_metrics_collect_seconds",
    ]);
    for (const [name, family] of Object.entries(families)) {
      expect(family.help.length, name).toBeGreaterThan(10);
      expect(family.type, name).toBe(
        ["tether_step_duration_seconds", "tether_packet_decision_seconds"].includes(name) ? "histogram" : "gauge",
      );
      if (family.type === "gauge")
        for (const sample of family.data as PromData[])
          expect(Number.isFinite(sample.value), `${name} ${sample.value}`).toBe(true);
      else {
        for (const series of family.data as PromHistogramData[]) {
          const counts = bucketsInOrder(series.buckets).map(([, count]) => count);
          expect(counts).toEqual([...counts].sort((a, b) => a - b)); // cumulative
          expect(counts.at(-1)).toBe(series.count);
        }
      }
    }
    // the runs above left durations in both histograms
    expect((families.tether_step_duration_seconds.data as PromHistogramData[]).length).toBeGreaterThan(0);
    expect((families.tether_packet_decision_seconds.data as PromHistogramData[]).length).toBeGreaterThan(0);
    // every status is there, also at zero
    expect((families.tether_runs.data as PromData[]).map((m) => m.labels.status).sort()).toEqual([
      "CANCELLED",
      "COMPLETED",
      "FAILED",
      "NEEDS_ATTENTION",
      "QUEUED",
      "RUNNING",
      "SLEEPING",
      "WAITING_APPROVAL",
      "WAITING_EVENT",
    ]);
  });

  it("escapes label values: quotes, backslashes and newlines in an agent's name stay in one sample line", async () => {
    const agent = register(scriptedAgent(`${uid("esc")} "quoted" back\\slash\nnext line`, [], []));
    await t.runtime.startRun({ agent: agent.slug, input: {} });
    const { text } = await get(tokens.metrics);
    expect(text).toContain(
      `agent="${agent.slug.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")}"`,
    );
    for (const line of text.split("\n").filter((l) => l && !l.startsWith("#"))) {
      expect(line).toMatch(
        /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*\})? \S+$/,
      );
    }
    const parsed = await parsePrometheus(text);
    expect(value(parsed, "tether_runs_active", { status: "QUEUED", agent: agent.slug })).toBe(1);
    const run = (await t.runtime.findRuns({ agentSlug: agent.slug }))[0];
    await t.runtime.cancelRun({ runId: run.id, by: "test" });
  });
});

describe("the Prometheus text format", () => {
  it("escapes HELP text and label values, writes +Inf/NaN, refuses a bad name or a histogram's own label", () => {
    const text = formatPrometheus([
      {
        name: "x_total",
        help: "a \\ back\nslash",
        type: "counter",
        samples: [
          { labels: { a: 'q"\\\n' }, value: Infinity },
          { labels: {}, value: Number.NaN },
        ],
      },
      {
        name: "h_seconds",
        help: "h",
        type: "histogram",
        bounds: [1, 2.5],
        series: [{ labels: { k: "v" }, buckets: [1, 3], count: 4, sum: 7.5 }],
      },
    ]);
    expect(text).toBe(
      [
        "# HELP x_total a \\\\ back\\nslash",
        "# TYPE x_total counter",
        'x_total{a="q\\"\\\\\\n"} +Inf',
        "x_total NaN",
        "# HELP h_seconds h",
        "# TYPE h_seconds histogram",
        'h_seconds_bucket{k="v",le="1"} 1',
        'h_seconds_bucket{k="v",le="2.5"} 3',
        'h_seconds_bucket{k="v",le="+Inf"} 4',
        'h_seconds_sum{k="v"} 7.5',
        'h_seconds_count{k="v"} 4',
        "",
      ].join("\n"),
    );
    expect(() => formatPrometheus([{ name: "bad-name", help: "", type: "gauge", samples: [] }])).toThrow();
    expect(() =>
      formatPrometheus([{ name: "g", help: "", type: "gauge", samples: [{ labels: { "bad-label": "x" }, value: 1 }] }]),
    ).toThrow();
    expect(() =>
      formatPrometheus([
        {
          name: "h",
          help: "",
          type: "histogram",
          bounds: [1],
          series: [{ labels: { le: "1" }, buckets: [1], count: 1, sum: 1 }],
        },
      ]),
    ).toThrow();
  });
});
