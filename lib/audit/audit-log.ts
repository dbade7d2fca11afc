// The audit log: every change a person makes, append-only. Written by the commands (lib/commands) in the
// same transaction as their change (auditChange(tx, …) of ./audit-change.ts, or the engine's AuditNote that
// the store writes with the change), by defineAction for a refused attempt ("<action>.denied"), by Auth.js
// events (sign-in, sign-out, failed sign-in) and by local commands (create-admin).
import { newRecordId } from "@/lib/runtime/record-id";
import type { Db } from "@/lib/db";

/** A Prisma client or an interactive transaction: anything with the auditLog delegate. */
export type AuditWriter = Pick<Db, "auditLog">;

export type AuditEntry = {
  actor: string; // the person's email, or "cli:<user>" for local commands
  action: string; // dotted, verb last: packets.decide, auth.signin, users.create
  target?: string | null; // what it acted on (a packet id, a user's email)
  data?: Record<string, unknown>; // JSON-serialisable details; never secrets
  via?: string; // through what, when not the console: "token:<name>", "mcp:<name>" (kept in data, as the export reads it)
};

/** Without a workspace, the row is the acting workspace's (lib/workspaces/scope.ts); with one, that workspace's. */
export async function writeAudit(db: AuditWriter, entry: AuditEntry, workspaceId?: string): Promise<void> {
  await db.auditLog.create({
    data: { ...auditRow(entry), ...(workspaceId ? { workspaceId } : {}) },
    select: { id: true },
  });
}

/** The stored row of an entry (the store's Postgres path inserts it with SQL of its own). */
export function auditRow(entry: AuditEntry): {
  id: string;
  actor: string;
  action: string;
  target: string | null;
  data: string;
} {
  const data = { ...entry.data, ...(entry.via ? { via: entry.via } : {}) };
  return {
    id: newRecordId("aud"),
    actor: entry.actor,
    action: entry.action,
    target: entry.target ?? null,
    data: JSON.stringify(data),
  };
}

export type AuditRecord = { id: string; actor: string; action: string; target: string | null; data: unknown; at: Date };

export async function findAuditLog(
  db: AuditWriter,
  opts: { actor?: string; action?: string; target?: string; limit?: number } = {},
): Promise<AuditRecord[]> {
  const rows = await db.auditLog.findMany({
    where: { actor: opts.actor, action: opts.action, target: opts.target },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: Math.min(opts.limit ?? 100, 500),
  });
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as unknown }));
}
