// Liveness: the process is up and serving. No database, no runtime: a database outage must not get
// every console restarted (readiness takes them out of the load balancer instead).
export const dynamic = "force-dynamic";

export function GET() {
  return Response.json({ ok: true });
}
