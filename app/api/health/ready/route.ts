import { defaultDatabaseUrl, getDb, providerOf } from "@/lib/db";
import { migrationsDir } from "@/lib/lifecycle/migrations";
import { checkReadiness } from "@/lib/lifecycle/readiness";
import { embeddedWorkerStatus, isShuttingDown } from "@/lib/runtime.server";

// Readiness (lib/lifecycle/readiness.ts): 200 when this console may take traffic, else 503 with the reason.
// No token, like /api/health: load balancers and probes call it; it says nothing secret.
export const dynamic = "force-dynamic";

export async function GET() {
  const provider = providerOf(defaultDatabaseUrl());
  const readiness = await checkReadiness({
    db: getDb(),
    provider,
    // The standalone server runs from its own folder, where the image puts prisma/ beside server.js.
    migrationsDir: migrationsDir(process.cwd(), provider),
    worker: embeddedWorkerStatus(),
    isShuttingDown: isShuttingDown(),
  });
  // Not ready also carries the API's error shape, so a client reads every refusal the same way.
  const body = readiness.ready ? readiness : { ...readiness, error: { code: "NOT_READY", message: readiness.reason } };
  return Response.json(body, { status: readiness.ready ? 200 : 503, headers: { "Cache-Control": "no-store" } });
}
