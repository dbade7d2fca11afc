// Builds the end-to-end database: a fresh SQLite file in data/e2e, migrated by the real set-up
// script, then filled by really running the test agents through the engine against the HTTP test
// world — no hand-made rows. Writes the ids of the runs it made to data/e2e/runs.json for the specs.
// The demo accounts (reviewer@, operator@, admin@example.com / tether-demo) are created with the
// seed's own function; e2e/auth.setup.ts signs each one in.
//   npx tsx e2e/prepare-db.ts        (playwright.config.ts runs it before `next start`)
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { seedDemoUsers } from "../lib/auth/users";
import { createDb } from "../lib/db";
import { createRuntime, type AgentDefinition } from "../lib/runtime";
import { createPrismaStore } from "../lib/store/prisma-store";
import { deployAgent, refundAgent } from "../tests/support/agents";
import { worldTools } from "../tests/support/tools";
import { startWorld } from "../tests/support/world";
import { E2E_DATA_DIR, e2eDatabaseUrl, RUNS_FILE, type E2eRuns } from "./fixtures";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const log = (msg: string) => console.log(`[e2e:db] ${msg}`);

async function main() {
  const dataDir = path.join(root, E2E_DATA_DIR);
  const url = e2eDatabaseUrl(root);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });

  // Migrate with the same set-up script production uses (no demo seed: every row below is real).
  execFileSync("npx", ["tsx", "scripts/setup.ts", "--no-seed"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, TETHER_DATA_DIR: E2E_DATA_DIR, DATABASE_URL: url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
  });

  const world = await startWorld();
  const db = createDb(url);
  try {
    await seedDemoUsers(db);
    log("demo accounts created");
    const refund = refundAgent("refund-demo");
    const deploy = deployAgent("deploy-demo");
    const agents: AgentDefinition[] = [refund as AgentDefinition, deploy as AgentDefinition];
    const runtime = createRuntime({ store: createPrismaStore(db), agents, tools: worldTools(world.url), retryBaseDelayMs: 5 });
    const by = { by: "admin@example.com" };
    for (const agent of agents) {
      for (const tool of agent.tools) {
        const conditions = tool === "payments.refund" ? [{ path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" }] : [];
        await runtime.permissions.put({ agent: agent.slug, tool, effect: "allow", conditions }, by);
      }
    }
    const drain = () => runtime.createWorker().drain();
    const expectStatus = async (runId: string, status: string) => {
      const run = await runtime.getRun(runId);
      if (run.status !== status) throw new Error(`run ${runId} is ${run.status}, expected ${status}${run.error ? ` (${run.error})` : ""}`);
      log(`${runId} ${status}`);
      return runId;
    };

    // (a) a refund under the limit: runs through to the end (order read, refund, email)
    world.orders.set("ord_1041", { id: "ord_1041", amountCents: 2400, status: "paid" });
    const completed = (await runtime.startRun({ agent: refund.slug, input: { orderId: "ord_1041", email: "dana@example.com" }, startedBy: "support@example.com" })).run.id;
    await drain();

    // (b) a refund over $100: stops at the gate with a decision packet
    world.orders.set("ord_1042", { id: "ord_1042", amountCents: 24_000, status: "paid" });
    const waitingApproval = (await runtime.startRun({ agent: refund.slug, input: { orderId: "ord_1042", email: "lee@example.com" }, startedBy: "support@example.com" })).run.id;
    await drain();

    // (c) an unsafe migration whose response is lost after it was applied: outcome unknown
    Object.assign(world.faults, { timeoutAfterApply: 1, only: "deploys" });
    const needsAttention = (await runtime.startRun({ agent: deploy.slug, input: { migration: "2025_add_invoice_index" }, startedBy: "ops@example.com" })).run.id;
    await drain();
    Object.assign(world.faults, { timeoutAfterApply: 0, only: undefined });

    // (d) a migration that went through and now waits for the deploy callback
    const waitingEvent = (await runtime.startRun({ agent: deploy.slug, input: { migration: "2025_drop_legacy_carts" }, startedBy: "ops@example.com" })).run.id;
    await drain();

    const runs: E2eRuns = {
      completed: await expectStatus(completed, "COMPLETED"),
      waitingApproval: await expectStatus(waitingApproval, "WAITING_APPROVAL"),
      needsAttention: await expectStatus(needsAttention, "NEEDS_ATTENTION"),
      waitingEvent: await expectStatus(waitingEvent, "WAITING_EVENT"),
    };
    writeFileSync(path.join(root, RUNS_FILE), `${JSON.stringify(runs, null, 2)}\n`);
    log(`wrote ${RUNS_FILE}`);
  } finally {
    await db.$disconnect();
    await world.close();
  }
}

main().then(
  () => process.exit(0), // Prisma's WASM timers would otherwise keep the process alive for a while
  (error: unknown) => {
    console.error("[e2e:db] failed:", error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
