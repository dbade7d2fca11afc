import type { Db } from "@/lib/db";

// Audit rows as exported: who (actor, and through what — `via`: a token, MCP, A2A; absent for the
// console), what (action, target), when, and the change's before/after where Tether records one:
// - users.role, users.disable: in the row's own data (before/after);
// - permissions.put, permissions.remove: in the permission's versioned history (PermissionChange), matched
//   by the rule's id and version (a removal by the change whose "after" is empty);
// - every other action records what was asked (its data) but no before/after: those columns are empty.

type AuditRow = { id: string; at: Date; actor: string; action: string; target: string | null; data: string };

export type AuditExportEntry = {
  id: string;
  at: string;
  actor: string;
  via: string | null;
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  data: unknown;
};

function parseData(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { raw: text };
  }
}

const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
const PERMISSION_ACTIONS = new Set(["permissions.put", "permissions.remove"]);

/** The before/after of the page's permission changes, from their versioned history (one query per page). */
async function permissionChanges(db: Db, rows: AuditRow[]) {
  const ids = [...new Set(rows.filter((r) => PERMISSION_ACTIONS.has(r.action) && r.target).map((r) => r.target!))];
  if (ids.length === 0) return [];
  return db.permissionChange.findMany({
    where: { permissionId: { in: ids } },
    select: { permissionId: true, version: true, before: true, after: true, at: true },
  });
}

export async function toExportEntries(db: Db, rows: AuditRow[]): Promise<AuditExportEntry[]> {
  const changes = await permissionChanges(db, rows);
  return rows.map((row) => {
    const data = parseData(row.data);
    let before: unknown = data.before ?? null;
    let after: unknown = data.after ?? null;
    if (row.action === "permissions.put" && typeof data.version === "number") {
      const change = changes.find((c) => c.permissionId === row.target && c.version === data.version);
      if (change) [before, after] = [parseJson(change.before), parseJson(change.after)];
    } else if (row.action === "permissions.remove") {
      const change = changes.find((c) => c.permissionId === row.target && c.after === null);
      if (change) [before, after] = [parseJson(change.before), null];
    }
    return {
      id: row.id,
      at: row.at.toISOString(),
      actor: row.actor,
      via: typeof data.via === "string" ? data.via : null,
      action: row.action,
      target: row.target,
      before,
      after,
      data,
    };
  });
}

export const AUDIT_CSV_HEADER = ["id", "at", "actor", "via", "action", "target", "before", "after", "data"] as const;

const jsonCell = (value: unknown) => (value === null || value === undefined ? "" : JSON.stringify(value));

export const toCsvRecord = (entry: AuditExportEntry): unknown[] => [
  entry.id,
  entry.at,
  entry.actor,
  entry.via,
  entry.action,
  entry.target,
  jsonCell(entry.before),
  jsonCell(entry.after),
  jsonCell(entry.data),
];
