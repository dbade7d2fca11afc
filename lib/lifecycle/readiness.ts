// Whether this console should get traffic (GET /api/health/ready): not shutting down, its database
// answers, the database's migrations are the ones this build ships (none pending), and its embedded
// worker runs when it is enabled. The first check that fails is the reason given with the 503.
import type { Db, DbProvider } from "@/lib/db";
import { migrationStatus } from "./migrations";

export type WorkerStatus = { enabled: boolean; running: boolean; failure?: string };

export type ReadinessInput = {
  db: Db;
  provider: DbProvider;
  /** prisma/<provider>/migrations as shipped with this build. */
  migrationsDir: string;
  worker: WorkerStatus;
  isShuttingDown: boolean;
  /** How long the database may take to answer before it counts as unreachable. */
  timeoutMs?: number;
};

export type Readiness = {
  ready: boolean;
  /** Why not, in a sentence; absent when ready. */
  reason?: string;
  database: DbProvider;
  migrations?: { pending: string[]; ahead: string[] };
  worker: "off" | "running" | "not started";
};

export async function checkReadiness(input: ReadinessInput): Promise<Readiness> {
  const { db, provider, worker } = input;
  const workerState = !worker.enabled ? "off" : worker.running ? "running" : "not started";
  const answer = (reason?: string, migrations?: Readiness["migrations"]): Readiness => ({
    ready: !reason,
    ...(reason ? { reason } : {}),
    database: provider,
    ...(migrations ? { migrations } : {}),
    worker: workerState,
  });
  if (input.isShuttingDown) return answer("shutting down: draining the worker before exit");
  let migrations: Readiness["migrations"];
  try {
    await withTimeout(db.$queryRawUnsafe("SELECT 1"), input.timeoutMs ?? 3_000, "the database did not answer");
    migrations = await withTimeout(
      migrationStatus(db, input.migrationsDir),
      input.timeoutMs ?? 3_000,
      "the migrations could not be read",
    );
  } catch (error) {
    // The message names the failure (timeout, refused connection), never a URL or a credential.
    return answer(`database unreachable: ${describe(error)}`);
  }
  if (migrations.pending.length > 0)
    return answer(`migrations pending: ${migrations.pending.join(", ")} (run the migrate step)`, migrations);
  if (worker.enabled && !worker.running)
    return answer(
      worker.failure ? `embedded worker failed to start: ${worker.failure}` : "embedded worker not started yet",
      migrations,
    );
  return answer(undefined, migrations);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A driver error's kind without its text (which may carry the connection string). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return "unknown error";
  if (/within \d+ ms$/.test(error.message)) return error.message;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? `${error.name} ${code}` : error.name;
}
