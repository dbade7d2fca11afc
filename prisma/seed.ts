import type { Db } from "../lib/db.ts";
import { demoAgents } from "../lib/agents/index.ts";
import { DEMO_PASSWORD, DEMO_USERS, isDemoMode } from "../lib/auth/mode.ts";
import { seedDemoUsers } from "../lib/commands/seed-demo-users.ts";
import type { Runtime } from "../lib/runtime/index.ts";
import { deliverDeployCallback } from "../lib/runtime.server.ts";
import { startSandboxServer } from "../lib/sandbox/http-server.ts";
import { putFault } from "../lib/sandbox/faults.ts";
import { seedSandbox } from "../lib/sandbox/seed.ts";
import { createTether } from "../lib/tether.ts";

/**
 * Demo data for a fresh database. scripts/setup.ts calls this once, right after the first migration
 * of a new database (never on later starts); `--no-seed` skips it.
 *
 * Nothing is inserted as a fake row: the sandbox world is seeded, the demo agents get their default
 * permissions, and then the agents really run — against the sandbox served on a temporary port, since
 * the console is not up yet — so the console opens on runs in every state, pending packets of each
 * kind, a run in NEEDS_ATTENTION, and traces with retries and failures.
 */
export async function seedDatabase(db: Db): Promise<void> {
  // Demo mode (the embedded default; TETHER_DEMO=0 turns it off): reviewer@, operator@ and
  // admin@example.com, password "tether-demo". Outside it no account exists: `tether create-admin`.
  if (isDemoMode()) {
    await seedDemoUsers({ db });
    console.log(`[seed] demo accounts: ${DEMO_USERS.map((u) => u.email).join(", ")} (password ${DEMO_PASSWORD})`);
  }
  await seedSandbox(db);
  let runtime: Runtime | undefined;
  const sandbox = await startSandboxServer(db, { onDeployFinished: (event) => deliverDeployCallback(runtime!)(event) });
  try {
    ({ runtime } = createTether({
      db,
      agents: demoAgents.map((a) => a.definition),
      sandbox: { sandboxUrl: sandbox.url, timeoutMs: 2_000 },
      registeredTools: false, // a new database has none
      retryBaseDelayMs: 20,
    }));
    for (const agent of demoAgents) {
      for (const permission of agent.defaultPermissions) await runtime.permissions.put(permission, { by: "seed" });
    }
    await runDemos(db, runtime, sandbox.url);
  } finally {
    await putFault(db, "payments", { timeoutAfterApply: 0 });
    await putFault(db, "deploys", { timeoutAfterApply: 0 });
    await sandbox.close();
  }
}

async function runDemos(db: Db, runtime: Runtime, sandboxUrl: string) {
  const worker = runtime.createWorker({ owner: "seed" });
  const start = async (agent: string, input: unknown) =>
    (await runtime.startRun({ agent, input, startedBy: "demo@example.com" })).run.id;
  const pendingPacket = async (runId: string) => (await runtime.store.findPackets({ runId, status: ["PENDING"] }))[0];
  const decide = async (runId: string, reviewer: string, input: unknown) => {
    const packet = await pendingPacket(runId);
    if (packet) await runtime.decidePacket({ packetId: packet.id, reviewer, input });
  };

  // Refunds: the $240.00 one waiting for a reviewer; one with weak evidence (three earlier refunds),
  // rejected with a reason the agent acts on; a small one that needs no approval, whose payment
  // response is lost once and retried under the same idempotency key; and a plain small one.
  await start("refund-agent", {
    orderId: "ord_1001",
    reason: "Cancelled within the hour, but the card was still charged (ticket tkt_2001).",
  });
  const doubtful = await start("refund-agent", {
    orderId: "ord_1004",
    reason: "Says the parcel never arrived (ticket tkt_2002).",
  });
  await start("refund-agent", { orderId: "ord_1003", reason: "Changed her mind." });
  await worker.drain();
  await decide(doubtful, "reviewer@example.com", {
    decision: "reject",
    reason: "Fourth refund claim this year: ask for proof of non-delivery first.",
  });
  await putFault(db, "payments", { timeoutAfterApply: 1, holdMs: 300 });
  await start("refund-agent", { orderId: "ord_1002", reason: "Item arrived damaged." });
  await worker.drain();

  // Deploys: one waiting for an operator; one approved and waiting for its callback; one completed with
  // its callback delivered twice; one whose migration failed; one whose outcome is unknown (NEEDS_ATTENTION).
  const deploy = (migration: string, reason: string) => start("deploy-agent", { migration, reason });
  await deploy("0043_drop_legacy_sessions", "The legacy session table is unused since 4.0.");
  const waiting = await deploy("0042_add_orders_customer_email_index", "Order history lookups by email are slow.");
  const done = await deploy("0041_add_refunds_reason_column", "Refund reasons are kept in notes today.");
  const unknown = await deploy("0044_backfill_invoice_totals", "Invoice totals are computed on read.");
  const failed = await deploy("0040_rename_customer_tables", "Table names predate the customer model.");
  await worker.drain();
  for (const runId of [waiting, done, failed]) await decide(runId, "operator@example.com", { decision: "approve" });
  await worker.drain();
  await putFault(db, "deploys", { timeoutAfterApply: 1, holdMs: 300 });
  await decide(unknown, "operator@example.com", { decision: "approve" });
  await worker.drain();
  await complete(sandboxUrl, done, "succeeded", 2);
  await complete(sandboxUrl, failed, "failed", 1);
  await worker.drain();

  // Outreach: researching, then sleeping on a durable timer; it asks to send once it wakes in the console.
  await start("outreach-agent", { to: "ada@example.com", query: "scheduled exports", waitMs: 60_000 });
  await worker.drain();

  // And one cancelled by an operator.
  const cancelled = await start("refund-agent", { orderId: "ord_1005", reason: "Duplicate ticket." });
  await runtime.cancelRun({ runId: cancelled, by: "operator@example.com", reason: "Duplicate of another run." });
}

/** The deploy system reports a run's migration finished (the callback may be delivered several times). */
async function complete(sandboxUrl: string, runId: string, outcome: "succeeded" | "failed", deliveries: number) {
  const { entries } = (await (await fetch(`${sandboxUrl}/ledger?runId=${runId}&system=deploys`)).json()) as {
    entries: Array<{ data: { deployId: string } }>;
  };
  for (const entry of entries) {
    await fetch(`${sandboxUrl}/deploys/${entry.data.deployId}/complete`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ outcome, deliveries }),
    });
  }
}
