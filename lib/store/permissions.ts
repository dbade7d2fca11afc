import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import type { RuntimeStore } from "@/lib/runtime/store";
import type { HotQuery } from "./hot-path";
import { isRecordNotFound, isUniqueViolation, json, parse, toPermission, type PermissionRow } from "./records";

// Permissions in the store: every change is versioned, with its audit row (before/after) in the same
// transaction; concurrent writers of one rule end in CONFLICT, never a raw database error.

type PermissionStore = Pick<RuntimeStore, "listPermissions" | "putPermission" | "deletePermission" | "listPermissionChanges">;

/** `hot`: on Postgres, the rules an acting step reads go straight to the pool (hot-path.ts). */
export function createPermissionStore(db: Db, hot: HotQuery | null): PermissionStore {
  async function putPermissionOnce(rule: Parameters<RuntimeStore["putPermission"]>[0], { id, auditId, expectedVersion }: Parameters<RuntimeStore["putPermission"]>[1]) {
    return db.$transaction(async (tx) => {
      const before = await tx.permission.findUnique({ where: { agent_tool_step: { agent: rule.agent, tool: rule.tool, step: rule.step } } });
      if (expectedVersion !== undefined && (before?.version ?? 0) !== expectedVersion) throw permissionConflict(rule);
      const data = {
        effect: rule.effect, conditions: json(rule.conditions), approvals: rule.approvals, onExpire: rule.onExpire,
        queue: rule.queue, ttlSeconds: rule.ttlSeconds, updatedBy: rule.updatedBy,
      };
      const after = before
        ? await tx.permission.update({ where: { id: before.id, version: before.version }, data: { ...data, version: { increment: 1 } } })
        : await tx.permission.create({ data: { id, agent: rule.agent, tool: rule.tool, step: rule.step, ...data, version: 1 } });
      await tx.permissionChange.create({
        data: { id: auditId, permissionId: after.id, version: after.version, before: before ? json(toPermission(before)) : null, after: json(toPermission(after)), changedBy: rule.updatedBy },
      });
      return toPermission(after);
    });
  }
  return {
    async listPermissions(opts = {}) {
      if (hot && opts.agent) {
        const rows = await hot<PermissionRow>({
          sql: `SELECT * FROM "Permission" WHERE "agent" = ANY($1::text[]) ORDER BY "agent", "tool", "step"`,
          values: [[opts.agent, "*"]],
        });
        return rows.map(toPermission);
      }
      const rows = await db.permission.findMany({
        where: opts.agent ? { agent: { in: [opts.agent, "*"] } } : undefined,
        orderBy: [{ agent: "asc" }, { tool: "asc" }, { step: "asc" }],
      });
      return rows.map(toPermission);
    },

    async putPermission(rule, opts) {
      try {
        return await putPermissionOnce(rule, opts);
      } catch (error) {
        if (!isUniqueViolation(error) && !isRecordNotFound(error)) throw error;
        // A concurrent put of the same rule won. Without an expected version this put is
        // "create or replace": do it again on top of the winner. With one, the caller must reload.
        if (opts.expectedVersion === undefined) return putPermissionOnce(rule, opts).catch((again) => { throw isUniqueViolation(again) || isRecordNotFound(again) ? permissionConflict(rule) : again; });
        throw permissionConflict(rule);
      }
    },

    async deletePermission({ id, changedBy, auditId }) {
      await db.$transaction(async (tx) => {
        const before = await tx.permission.findUnique({ where: { id } });
        if (!before) throw new AppError("NOT_FOUND", { message: `permission ${id} not found`, userMessage: "That permission does not exist." });
        await tx.permission.delete({ where: { id } });
        await tx.permissionChange.create({ data: { id: auditId, permissionId: id, version: before.version + 1, before: json(toPermission(before)), after: null, changedBy } });
      });
    },

    async listPermissionChanges(opts = {}) {
      const rows = await db.permissionChange.findMany({
        where: { permissionId: opts.permissionId },
        orderBy: [{ at: "desc" }, { version: "desc" }],
        take: opts.limit ?? 100,
      });
      return rows.map((r) => ({ ...r, before: parse(r.before), after: parse(r.after) }));
    },
  };
}

function permissionConflict(rule: { agent: string; tool: string; step: string }) {
  return new AppError("CONFLICT", { message: `permission ${rule.agent}/${rule.tool}/${rule.step} changed concurrently`, userMessage: "Someone changed this permission at the same time. Reload and try again." });
}
