/**
 * GET /api/metrics — Tether's metrics in the Prometheus text format (0.0.4), for a Prometheus scrape job:
 *   authorization: { type: Bearer, credentials: <API token with the metrics:read scope> }
 * Runs by status and agent, step commits and step durations, pending packets by queue and age, decision
 * latency, effects by tool and status, worker leases. Everything is counted by the database on each
 * scrape, so any process of the app answers the same; histograms cover the last 24 h (lib/metrics/README.md
 * lists the series). No token: 401; a token without metrics:read (or admin): 403.
 */
import { defineRoute } from "@/lib/api/route";
import { collectMetrics } from "@/lib/metrics/collect";
import { formatPrometheus, PROMETHEUS_CONTENT_TYPE } from "@/lib/metrics/prometheus";

export const dynamic = "force-dynamic";

export const GET = defineRoute({ scope: "metrics:read" }, async ({ db }) => {
  const text = formatPrometheus(await collectMetrics(db));
  return new Response(text, { headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" } });
});
