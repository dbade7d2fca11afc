import { writeAudit } from "@/lib/audit/audit-log";
import { AppError } from "@/lib/runtime/errors";
import type { RuntimeStore } from "@/lib/runtime/store";
import { CAPABILITIES } from "@/lib/runtime/types";
import type { Dialect } from "./dialect";
import { isRecordNotFound, isUniqueViolation, json, parse, toPermission, type PermissionRow, type Tx } from "./records";

// Permissions in the store: every change is versioned, with its history row (before/after) and, for a
// person's change, its audit log row in the same transaction; concurrent writers of one rule end in
// CONFLICT, never a raw database error.

type PermissionStore = Pick<
  RuntimeStore,
  | "listPermissions"
  | "permissionEpoch"
  | "listPermissionsAtEpoch"
  | "putPermission"
  | "deletePermission"
  | "listPermissionChanges"
>;

export const PERMISSIONS_EPOCH = "permissions";

/** Every permission change moves the epoch, in its own transaction (see Epoch in prisma/models.prisma). */
const moveEpoch = (tx: Tx) =>
  tx.epoch.upsert({
    where: { name: PERMISSIONS_EPOCH },
    update: { value: { increment: 1 } },
    create: { name: PERMISSIONS_EPOCH, value: 1 },
  });

const EPOCH_SQL = `SELECT "value" FROM "Epoch" WHERE "name" = 'permissions'`;

/** On Postgres, what an acting step reads (the epoch, the rules) goes straight to the pool (hot-path.ts). */
export function createPermissionStore(d: Dialect): PermissionStore {
  const { db } = d;
  const hot = d.name === "postgres" ? d.query : null;
  async function putPermissionOnce(
    rule: Parameters<RuntimeStore["putPermission"]>[0],
    { id, auditId, expectedVersion, audit }: Parameters<RuntimeStore["putPermission"]>[1],
  ) {
    return db.$transaction(async (tx) => {
      const before = await tx.permission.findFirst({ where: { agent: rule.agent, tool: rule.tool, step: rule.step } });
      if (expectedVersion !== undefined && (before?.version ?? 0) !== expectedVersion) throw permissionConflict(rule);
      const data = {
        effect: rule.effect,
        conditions: json(rule.conditions),
        capabilities: json(rule.capabilities ?? CAPABILITIES),
        freshEvidence: rule.freshEvidence ?? false,
        approvals: rule.approvals,
        onExpire: rule.onExpire,
        queue: rule.queue,
        ttlSeconds: rule.ttlSeconds,
        updatedBy: rule.updatedBy,
      };
      const after = before
        ? await tx.permission.update({
            where: { id: before.id, version: before.version },
            data: { ...data, version: { increment: 1 } },
          })
        : await tx.permission.create({
            data: { id, agent: rule.agent, tool: rule.tool, step: rule.step, ...data, version: 1 },
          });
      await tx.permissionChange.create({
        data: {
          id: auditId,
          permissionId: after.id,
          version: after.version,
          before: before ? json(toPermission(before)) : null,
          after: json(toPermission(after)),
          changedBy: rule.updatedBy,
        },
      });
      await moveEpoch(tx);
      const saved = toPermission(after);
      if (audit) await writeAudit(tx, audit(saved), after.workspaceId);
      return saved;
    });
  }
  return {
    async permissionEpoch() {
      if (hot) return (await hot<{ value: number }>({ sql: EPOCH_SQL, values: [] }))[0]?.value ?? 0;
      return (await db.epoch.findUnique({ where: { name: PERMISSIONS_EPOCH } }))?.value ?? 0;
    },

    async listPermissionsAtEpoch(agent, workspaceId) {
      if (hot) {
        // One statement, so the rules and the epoch are one snapshot.
        const rows = await hot<PermissionRow & { epoch: number | null }>({
          sql: `SELECT (${EPOCH_SQL}) AS "epoch", p.* FROM (SELECT 1) AS one
            LEFT JOIN "Permission" p ON p."agent" = ANY($1::text[]) AND p."workspaceId" = $2::text ORDER BY p."agent", p."tool", p."step"`,
          values: [[agent, "*"], workspaceId],
        });
        return {
          epoch: rows[0]?.epoch ?? 0,
          rules: rows.filter((r) => r.id !== null).map(({ epoch: _epoch, ...row }) => toPermission(row)),
        };
      }
      const [epoch, rows] = await db.$transaction([
        db.epoch.findUnique({ where: { name: PERMISSIONS_EPOCH } }),
        db.permission.findMany({
          where: { agent: { in: [agent, "*"] }, workspaceId },
          orderBy: [{ agent: "asc" }, { tool: "asc" }, { step: "asc" }],
        }),
      ]);
      return { epoch: epoch?.value ?? 0, rules: rows.map(toPermission) };
    },

    async listPermissions(opts = {}) {
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
        if (opts.expectedVersion === undefined)
          return putPermissionOnce(rule, opts).catch((again) => {
            throw isUniqueViolation(again) || isRecordNotFound(again) ? permissionConflict(rule) : again;
          });
        throw permissionConflict(rule);
      }
    },

    async deletePermission({ id, changedBy, auditId, audit }) {
      await db.$transaction(async (tx) => {
        const before = await tx.permission.findUnique({ where: { id } });
        if (!before)
          throw new AppError("NOT_FOUND", {
            message: `permission ${id} not found`,
            userMessage: "That permission does not exist.",
          });
        await tx.permission.delete({ where: { id } });
        await tx.permissionChange.create({
          data: {
            id: auditId,
            permissionId: id,
            version: before.version + 1,
            before: json(toPermission(before)),
            after: null,
            changedBy,
          },
        });
        await moveEpoch(tx);
        if (audit) await writeAudit(tx, audit, before.workspaceId);
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
  return new AppError("CONFLICT", {
    message: `permission ${rule.agent}/${rule.tool}/${rule.step} changed concurrently`,
    userMessage: "Someone changed this permission at the same time. Reload and try again.",
  });
}
