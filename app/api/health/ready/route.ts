import { checkConsoleReadiness } from "@/lib/lifecycle/probes";

// Readiness (lib/lifecycle/readiness.ts): 200 when this console may take traffic, else 503 with the reason.
// No token, like /api/health: load balancers and probes call it; it says nothing secret.
export const dynamic = "force-dynamic";

export async function GET() {
  const readiness = await checkConsoleReadiness();
  // Not ready also carries the API's error shape, so a client reads every refusal the same way.
  const body = readiness.ready ? readiness : { ...readiness, error: { code: "NOT_READY", message: readiness.reason } };
  return Response.json(body, { status: readiness.ready ? 200 : 503, headers: { "Cache-Control": "no-store" } });
}
