import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Db } from "@/lib/db";
import type { Runtime } from "@/lib/runtime";
import type { DefinedAgent } from "@/lib/sdk";
import { putDoc } from "@/lib/sandbox/docs";
import { putFault } from "@/lib/sandbox/faults";
import { seedSandbox } from "@/lib/sandbox/seed";
import type { EvalCaseSpec, WorldOp } from "./spec";

// A trial's world: a database of its own (a copy of a migrated template — the sandbox world lives in
// the same database as the runs, and trials must not see each other's ledger), seeded with the demo
// world, then the case's orders, docs, fault knobs and permissions.

type SqliteDatabase = { exec: (sql: string) => void; pragma: (sql: string) => unknown; close: () => void };
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => SqliteDatabase;

/** A migrated, empty SQLite database to copy for every trial (the committed SQLite migrations, in order). */
export function createTemplateDb(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "template.db");
  rmSync(file, { force: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    const root = path.join(process.cwd(), "prisma/sqlite/migrations");
    for (const name of readdirSync(root)
      .filter((n) => /^\d+_/.test(n))
      .sort()) {
      db.exec(readFileSync(path.join(root, name, "migration.sql"), "utf8"));
    }
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  return file;
}

export function createTrialDb(template: string, dir: string, name: string): { url: string; remove: () => void } {
  const file = path.join(dir, `${name}.db`);
  copyFileSync(template, file);
  return {
    url: `file:${file}`,
    remove: () => {
      for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(file + suffix, { force: true });
    },
  };
}

/** Seed the demo world and apply the case's world set-up, the agent's default permissions and the case's. */
export async function setUpWorld(db: Db, runtime: Runtime, spec: EvalCaseSpec, agents: DefinedAgent[]): Promise<void> {
  await seedSandbox(db);
  const world = spec.world;
  for (const order of world.orders) {
    const { refundedCents, createdAt, ...rest } = order;
    const status =
      refundedCents === 0 ? "paid" : refundedCents >= order.amountCents ? "refunded" : "partially_refunded";
    const data = { ...rest, refundedCents, status, ...(createdAt ? { createdAt: new Date(createdAt) } : {}) };
    await db.sandboxOrder.upsert({ where: { id: order.id }, create: data, update: data });
  }
  for (const doc of world.docs) await putDoc(db, doc.id, { title: doc.title, body: doc.body });
  for (const [system, knob] of Object.entries(world.faults))
    await putFault(db, system as Parameters<typeof putFault>[1], knob ?? {});
  const agent = agents.find((a) => a.definition.slug === spec.agent);
  const overridden = new Set(world.permissions.map((p) => p.tool));
  for (const permission of agent?.defaultPermissions ?? []) {
    if (!overridden.has(permission.tool)) await runtime.permissions.put(permission, { by: "eval-setup" });
  }
  for (const permission of world.permissions)
    await runtime.permissions.put({ ...permission, agent: permission.agent ?? spec.agent }, { by: "eval-setup" });
}

/** A change of the world made from outside the run (the harness plays "someone else"). */
export async function applyWorldOp(sandboxUrl: string, db: Db, op: WorldOp): Promise<void> {
  if (op.op === "put-doc") {
    await putDoc(db, op.id, { title: op.title, body: op.body });
    return;
  }
  const order = await db.sandboxOrder.findUnique({ where: { id: op.orderId } });
  if (!order) throw new Error(`refund-elsewhere: no order ${op.orderId}`);
  const amountCents = op.amountCents ?? order.amountCents - order.refundedCents;
  if (amountCents <= 0) return;
  // Over HTTP like any other client of the payment provider, under its own key and no run id.
  const res = await fetch(`${sandboxUrl}/payments/refunds`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": `elsewhere-${op.orderId}-${amountCents}` },
    body: JSON.stringify({ orderId: op.orderId, amountCents }),
  });
  if (!res.ok) throw new Error(`refund-elsewhere of ${op.orderId}: HTTP ${res.status} ${await res.text()}`);
}
