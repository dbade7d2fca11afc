// Tether's metrics as Prometheus families, read from the database on each call (lib/metrics/README.md lists
// them). Gauges are the state now; the histograms cover a sliding window of WINDOW_HOURS — read them with
// histogram_quantile() on the series as they are, not with rate(): their counts fall as the window moves.
import type { Db } from "@/lib/db";
import { countRunsByStatus } from "@/lib/queries/run-status-counts";
import type { HistogramSeries, MetricFamily, Sample } from "./prometheus";
import {
  countActiveRuns,
  countEffects,
  countLeases,
  countRunsCreatedSince,
  DECISION_BOUNDS,
  findDecisionLatencies,
  findPendingPackets,
  PENDING_AGE_BANDS,
  type RunCount,
} from "./queries";
import { findStepDurations, STEP_BOUNDS } from "./step-durations";

export const WINDOW_HOURS = 24;

const gauge = (name: string, help: string, samples: Sample[]): MetricFamily => ({ name, help, type: "gauge", samples });
const byStatusAndAgent = (counts: RunCount[]): Sample[] =>
  counts.map((c) => ({ labels: { status: c.status, agent: c.agent }, value: c.count }));

export async function collectMetrics(db: Db, now: Date = new Date()): Promise<MetricFamily[]> {
  const started = performance.now();
  const since = new Date(now.getTime() - WINDOW_HOURS * 3_600_000);
  const window = `the last ${WINDOW_HOURS} h`;
  const [statuses, active, created, leases, steps, pending, decisions, effects] = await Promise.all([
    countRunsByStatus(db),
    countActiveRuns(db),
    countRunsCreatedSince(db, since),
    countLeases(db, now),
    findStepDurations(db, since),
    findPendingPackets(db, now),
    findDecisionLatencies(db, since),
    countEffects(db, since),
  ]);
  const stepSeries: HistogramSeries[] = steps.map((s) => ({
    labels: { agent: s.agent },
    buckets: s.buckets,
    count: s.count,
    sum: s.sum,
  }));
  const decisionSeries: HistogramSeries[] = decisions.map((d) => ({
    labels: { queue: d.queue, status: d.status },
    buckets: d.buckets,
    count: d.count,
    sum: d.sum,
  }));
  return [
    gauge(
      "tether_runs",
      "Runs by status, all of them.",
      Object.entries(statuses).map(([status, count]) => ({ labels: { status }, value: count })),
    ),
    gauge(
      "tether_runs_active",
      "Runs not yet ended (queued, running, waiting, sleeping, needing attention), by status and agent.",
      byStatusAndAgent(active),
    ),
    gauge(
      "tether_runs_created",
      `Runs created in ${window}, by their status now and agent.`,
      byStatusAndAgent(created),
    ),
    gauge(
      "tether_step_commits",
      `Step commits (checkpoints) in ${window}, by agent: a pure step one checkpoint, an effectful step two (intent, then result); a free pure read's is written with the next step's commit; of runs created in the window or not yet ended.`,
      steps.map((s) => ({ labels: { agent: s.agent }, value: s.commits })),
    ),
    {
      name: "tether_step_duration_seconds",
      type: "histogram",
      bounds: STEP_BOUNDS,
      series: stepSeries,
      help: `Seconds between consecutive step commits of a run while a worker held it (model, tools, commit; the free pure reads a commit carries too), commits of ${window}; the first commit after a claim is not measured.`,
    },
    gauge(
      "tether_packets_pending",
      `Pending decision packets by queue and age band (${PENDING_AGE_BANDS.map(([band]) => band).join(", ")}).`,
      pending.flatMap((q) =>
        PENDING_AGE_BANDS.map(([band], i) => ({ labels: { queue: q.queue, age: band }, value: q.bands[i] })),
      ),
    ),
    gauge(
      "tether_packets_pending_oldest_age_seconds",
      "Age of the oldest pending decision packet, by queue.",
      pending.map((q) => ({ labels: { queue: q.queue }, value: q.oldestAgeSeconds })),
    ),
    {
      name: "tether_packet_decision_seconds",
      type: "histogram",
      bounds: DECISION_BOUNDS,
      series: decisionSeries,
      help: `Seconds from a decision packet's creation to its decision (decidedAt - createdAt), packets decided in ${window}, by queue and outcome status.`,
    },
    gauge(
      "tether_effects",
      `Effect intents by tool and status (PENDING, SUCCEEDED, FAILED, UNKNOWN, RESOLVED): those created in ${window}, and every older one still PENDING or UNKNOWN of a run not yet ended.`,
      effects.map((e) => ({ labels: { tool: e.tool, status: e.status }, value: e.count })),
    ),
    gauge(
      "tether_leases",
      "Runs leased to a worker whose lease has not expired, by owner.",
      leases.filter((l) => l.held > 0).map((l) => ({ labels: { owner: l.owner }, value: l.held })),
    ),
    gauge(
      "tether_leases_expired",
      "Runs not yet ended whose lease expired without being released (its worker stalled or died; claimable again), by owner.",
      leases.filter((l) => l.expired > 0).map((l) => ({ labels: { owner: l.owner }, value: l.expired })),
    ),
    gauge("tether_metrics_collect_seconds", "Seconds this scrape's queries took.", [
      { labels: {}, value: (performance.now() - started) / 1000 },
    ]),
  ];
}
