import { auditRow, writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import type { PacketFilter, RuntimeStore } from "@/lib/runtime/store";
import type { DecisionPacket } from "@/lib/runtime/types";
import type { Dialect } from "./dialect";
import type { HotQuery } from "./hot-path";
import { anyOf, isUniqueViolation, json, packetInclude, toPacket, type PacketRow, type Tx } from "./records";
import { appendEvents } from "./trace-events";
import { notifySql } from "./wakeups";

// Decision packets in the store: a person's decision and an assignment are compare-and-set on the
// packet's version, so however many reviewers press at once exactly one wins; the run is woken and the
// trace written in the same transaction.

type PacketStore = Pick<RuntimeStore, "getPacket" | "findPackets" | "decidePacket" | "assignPacket">;

/** A workspace condition for Prisma: null is the system's read across workspaces. */
const inWorkspaceWhere = (workspaceId: string | null) => (workspaceId === null ? {} : { workspaceId });

async function getPacketOrThrow(tx: Tx | Db, id: string, workspaceId: string | null = null): Promise<DecisionPacket> {
  const row = await tx.decisionPacket.findUnique({
    where: { id, ...inWorkspaceWhere(workspaceId) },
    include: packetInclude,
  });
  if (!row)
    throw new AppError("NOT_FOUND", {
      message: `packet ${id} not found`,
      userMessage: "That decision packet does not exist.",
    });
  return toPacket(row);
}

/** One packet with its approvers in one statement: what a woken run reads first (hot-path.ts). */
const GET_PACKET_SQL = `SELECT p.*, COALESCE((SELECT json_agg(json_build_object('approver', a."approver") ORDER BY a."at")
  FROM "PacketApproval" a WHERE a."packetId" = p."id"), '[]'::json) AS "approvals" FROM "DecisionPacket" p WHERE p."id" = $1 AND ($2::text IS NULL OR p."workspaceId" = $2::text)`;

/** Postgres reads and decides through the pool (d.query, d.transaction); SQLite through Prisma. */
export function createPacketStore(d: Dialect): PacketStore {
  const { db, now, wakeups } = d;
  return {
    async getPacket(id, workspaceId) {
      if (d.name === "postgres") {
        const [row] = await d.query<PacketRow>({ sql: GET_PACKET_SQL, values: [id, workspaceId] });
        return row ? toPacket(row) : null;
      }
      const row = await db.decisionPacket.findUnique({
        where: { id, ...inWorkspaceWhere(workspaceId) },
        include: packetInclude,
      });
      return row ? toPacket(row) : null;
    },

    async findPackets({ status, limit, ...equal }: PacketFilter) {
      const rows = await db.decisionPacket.findMany({
        where: { ...equal, status: anyOf(status) },
        include: packetInclude,
        orderBy: { createdAt: "asc" },
        take: limit ?? 200,
      });
      return rows.map(toPacket);
    },

    async decidePacket({ packetId, workspaceId, version, approver, final, events, audit }) {
      const at = final?.now ?? now();
      if (d.transaction) {
        const { packet, woken } = await d.transaction((query) =>
          decideOnPostgres(query, { packetId, workspaceId, version, approver, final, events, audit, at }),
        );
        if (woken) wakeups.emit({ runId: packet.runId });
        return packet;
      }
      let woken = false;
      const decided = await db.$transaction(async (tx) => {
        const packet = await getPacketOrThrow(tx, packetId, workspaceId);
        if (packet.status !== "PENDING") throw alreadyDecided(packet);
        if (approver) {
          if (packet.approvers.includes(approver)) throw alreadyApproved(approver, packetId);
          // The primary key (packetId, approver) settles a race of the same reviewer with itself.
          await tx.packetApproval.create({ data: { packetId, approver, at } }).catch((error) => {
            throw isUniqueViolation(error) ? alreadyApproved(approver, packetId) : error;
          });
        }
        // Compare-and-set: exactly one decision wins, however many reviewers press at once.
        const { count } = await tx.decisionPacket.updateMany({
          where: { id: packetId, status: "PENDING", version },
          data: {
            version: { increment: 1 },
            changedAt: new Date(),
            ...(final
              ? { status: final.status, decision: json(final.decision), decidedBy: final.decidedBy, decidedAt: at }
              : {}),
          },
        });
        if (count === 0) {
          const current = await getPacketOrThrow(tx, packetId);
          if (current.status !== "PENDING") throw alreadyDecided(current);
          throw new AppError("CONFLICT", {
            message: `packet ${packetId} changed (version ${version} → ${current.version})`,
            userMessage: "Someone else acted on this packet at the same moment. Reload and try again.",
          });
        }
        if (final) {
          const { count } = await tx.run.updateMany({
            where: { id: packet.runId, status: { in: ["WAITING_APPROVAL", "NEEDS_ATTENTION"] } },
            data: { wakeAt: at, runnableAt: at },
          });
          woken = count > 0;
        }
        await appendEvents(tx, packet.runId, events, at);
        if (audit) await writeAudit(tx, audit, packet.workspaceId);
        return getPacketOrThrow(tx, packetId);
      });
      if (woken) wakeups.emit({ runId: decided.runId });
      return decided;
    },

    async assignPacket({ packetId, version, queue, assignee, events, audit }) {
      return db.$transaction(async (tx) => {
        const { count } = await tx.decisionPacket.updateMany({
          where: { id: packetId, status: "PENDING", version },
          data: { version: { increment: 1 }, queue, assignee, changedAt: new Date() },
        });
        const packet = await getPacketOrThrow(tx, packetId);
        if (count === 0) {
          if (packet.status !== "PENDING") throw alreadyDecided(packet);
          throw new AppError("CONFLICT", {
            message: `packet ${packetId} changed`,
            userMessage: "The packet changed at the same moment. Reload and try again.",
          });
        }
        await appendEvents(tx, packet.runId, events, now());
        if (audit) await writeAudit(tx, audit, packet.workspaceId);
        return packet;
      });
    },
  };
}

type Decide = Parameters<RuntimeStore["decidePacket"]>[0] & { at: Date };

/**
 * decidePacket on Postgres: the same steps as the Prisma transaction below (approval, compare-and-set,
 * wake, trace), as prepared statements in one transaction on one pooled connection — a person's
 * decision is a few milliseconds, not one Prisma round trip per statement.
 */
async function decideOnPostgres(
  query: HotQuery,
  { packetId, workspaceId, version, approver, final, events, audit, at }: Decide,
): Promise<{ packet: DecisionPacket; woken: boolean }> {
  const read = async () => {
    const [row] = await query<PacketRow>({ sql: GET_PACKET_SQL, values: [packetId, workspaceId] });
    if (!row)
      throw new AppError("NOT_FOUND", {
        message: `packet ${packetId} not found`,
        userMessage: "That decision packet does not exist.",
      });
    return toPacket(row);
  };
  const packet = await read();
  if (packet.status !== "PENDING") throw alreadyDecided(packet);
  if (approver) {
    if (packet.approvers.includes(approver)) throw alreadyApproved(approver, packetId);
    const inserted = await query({
      sql: `INSERT INTO "PacketApproval" ("packetId", "approver", "at") VALUES ($1::text, $2::text, $3::timestamp(3)) ON CONFLICT DO NOTHING RETURNING 1 AS "ok"`,
      values: [packetId, approver, at],
    });
    if (inserted.length === 0) throw alreadyApproved(approver, packetId); // the same reviewer, racing itself
  }
  const cas = await query({
    sql: `UPDATE "DecisionPacket" SET "version" = "version" + 1, "changedAt" = $7::timestamp(3),
        "status" = COALESCE($3::text, "status"), "decision" = COALESCE($4::text, "decision"),
        "decidedBy" = COALESCE($5::text, "decidedBy"), "decidedAt" = COALESCE($6::timestamp(3), "decidedAt")
      WHERE "id" = $1::text AND "status" = 'PENDING' AND "version" = $2::int RETURNING 1 AS "ok"`,
    values: [
      packetId,
      version,
      final?.status ?? null,
      final ? json(final.decision) : null,
      final?.decidedBy ?? null,
      final ? at : null,
      new Date(),
    ],
  });
  if (cas.length === 0) {
    const current = await read();
    if (current.status !== "PENDING") throw alreadyDecided(current);
    throw new AppError("CONFLICT", {
      message: `packet ${packetId} changed (version ${version} → ${current.version})`,
      userMessage: "Someone else acted on this packet at the same moment. Reload and try again.",
    });
  }
  let woken = false;
  if (final) {
    const rows = await query({
      sql: `UPDATE "Run" SET "wakeAt" = $2::timestamp(3), "runnableAt" = $2::timestamp(3), "updatedAt" = $3::timestamp(3)
        WHERE "id" = $1::text AND "status" IN ('WAITING_APPROVAL', 'NEEDS_ATTENTION') RETURNING ${notifySql(`"id"`)} AS "notified"`,
      values: [packet.runId, at, new Date()],
    });
    woken = rows.length > 0;
  }
  if (events.length > 0) {
    await query({
      sql: `WITH head AS (UPDATE "Run" SET "eventSeq" = "eventSeq" + $2::int, "updatedAt" = $3::timestamp(3) WHERE "id" = $1::text RETURNING "eventSeq")
        INSERT INTO "TraceEvent" ("runId", "seq", "step", "type", "data", "at")
        SELECT $1::text, head."eventSeq" - $2::int + e.n::int, e.step, e.type, e.data, $4::timestamp(3)
        FROM head, unnest($5::int[], $6::text[], $7::text[]) WITH ORDINALITY AS e(step, type, data, n)`,
      values: [
        packet.runId,
        events.length,
        new Date(),
        at,
        events.map((e) => e.step),
        events.map((e) => e.type),
        events.map((e) => json(e.data)),
      ],
    });
  }
  if (audit) {
    const row = auditRow(audit);
    await query({
      sql: `INSERT INTO "AuditLog" ("id", "actor", "action", "target", "data", "at", "workspaceId") VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::timestamp(3), $7::text)`,
      values: [row.id, row.actor, row.action, row.target, row.data, new Date(), packet.workspaceId],
    });
  }
  return { packet: await read(), woken };
}

function alreadyApproved(approver: string, packetId: string) {
  return new AppError("CONFLICT", {
    message: `${approver} already approved packet ${packetId}`,
    userMessage: "You already approved this action; a different reviewer must give the next approval.",
  });
}

function alreadyDecided(packet: DecisionPacket) {
  return new AppError("PACKET_ALREADY_DECIDED", {
    message: `packet ${packet.id} is already ${packet.status}`,
    userMessage: packet.decidedBy
      ? `This packet was already decided (${packet.status.toLowerCase()}) by ${packet.decidedBy}.`
      : `This packet is already ${packet.status.toLowerCase()}.`,
  });
}
