import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import type { PacketFilter, RuntimeStore } from "@/lib/runtime/store";
import type { DecisionPacket } from "@/lib/runtime/types";
import type { HotQuery } from "./hot-path";
import { isUniqueViolation, json, packetInclude, toPacket, type PacketRow, type Tx } from "./records";
import { appendEvents } from "./trace-events";
import { notifyInTransaction, type Wakeups } from "./wakeups";

// Decision packets in the store: a person's decision and an assignment are compare-and-set on the
// packet's version, so however many reviewers press at once exactly one wins; the run is woken and the
// trace written in the same transaction.

type PacketStore = Pick<RuntimeStore, "getPacket" | "findPackets" | "decidePacket" | "assignPacket">;

async function getPacketOrThrow(tx: Tx | Db, id: string): Promise<DecisionPacket> {
  const row = await tx.decisionPacket.findUnique({ where: { id }, include: packetInclude });
  if (!row) throw new AppError("NOT_FOUND", { message: `packet ${id} not found`, userMessage: "That decision packet does not exist." });
  return toPacket(row);
}

/** One packet with its approvers in one statement: what a woken run reads first (hot-path.ts). */
const GET_PACKET_SQL = `SELECT p.*, COALESCE((SELECT json_agg(json_build_object('approver', a."approver") ORDER BY a."at")
  FROM "PacketApproval" a WHERE a."packetId" = p."id"), '[]'::json) AS "approvals" FROM "DecisionPacket" p WHERE p."id" = $1`;

export function createPacketStore(db: Db, now: () => Date, opts: { postgres: boolean; wakeups: Wakeups; hot: HotQuery }): PacketStore {
  return {
    async getPacket(id) {
      if (opts.postgres) {
        const [row] = await opts.hot<PacketRow>({ sql: GET_PACKET_SQL, values: [id] });
        return row ? toPacket(row) : null;
      }
      const row = await db.decisionPacket.findUnique({ where: { id }, include: packetInclude });
      return row ? toPacket(row) : null;
    },

    async findPackets(filter: PacketFilter) {
      const rows = await db.decisionPacket.findMany({
        where: {
          status: filter.status ? { in: filter.status } : undefined,
          runId: filter.runId,
          queue: filter.queue,
          assignee: filter.assignee,
          kind: filter.kind,
        },
        include: packetInclude,
        orderBy: { createdAt: "asc" },
        take: filter.limit ?? 200,
      });
      return rows.map(toPacket);
    },

    async decidePacket({ packetId, version, approver, final, events }) {
      const at = final?.now ?? now();
      let woken = false;
      const decided = await db.$transaction(async (tx) => {
        const packet = await getPacketOrThrow(tx, packetId);
        if (packet.status !== "PENDING") throw alreadyDecided(packet);
        if (approver) {
          const alreadyApproved = () => new AppError("CONFLICT", { message: `${approver} already approved packet ${packetId}`, userMessage: "You already approved this action; a different reviewer must give the next approval." });
          if (packet.approvers.includes(approver)) throw alreadyApproved();
          // The primary key (packetId, approver) settles a race of the same reviewer with itself.
          await tx.packetApproval.create({ data: { packetId, approver, at } }).catch((error) => {
            throw isUniqueViolation(error) ? alreadyApproved() : error;
          });
        }
        // Compare-and-set: exactly one decision wins, however many reviewers press at once.
        const { count } = await tx.decisionPacket.updateMany({
          where: { id: packetId, status: "PENDING", version },
          data: {
            version: { increment: 1 },
            ...(final ? { status: final.status, decision: json(final.decision), decidedBy: final.decidedBy, decidedAt: at } : {}),
          },
        });
        if (count === 0) {
          const current = await getPacketOrThrow(tx, packetId);
          if (current.status !== "PENDING") throw alreadyDecided(current);
          throw new AppError("CONFLICT", { message: `packet ${packetId} changed (version ${version} → ${current.version})`, userMessage: "Someone else acted on this packet at the same moment. Reload and try again." });
        }
        if (final) {
          const { count } = await tx.run.updateMany({ where: { id: packet.runId, status: { in: ["WAITING_APPROVAL", "NEEDS_ATTENTION"] } }, data: { wakeAt: at, runnableAt: at } });
          woken = count > 0;
          if (woken) await notifyInTransaction(tx, opts.postgres, { runId: packet.runId });
        }
        await appendEvents(tx, packet.runId, events, at);
        return getPacketOrThrow(tx, packetId);
      });
      if (woken) opts.wakeups.emit({ runId: decided.runId });
      return decided;
    },

    async assignPacket({ packetId, version, queue, assignee, events }) {
      return db.$transaction(async (tx) => {
        const { count } = await tx.decisionPacket.updateMany({
          where: { id: packetId, status: "PENDING", version },
          data: { version: { increment: 1 }, queue, assignee },
        });
        const packet = await getPacketOrThrow(tx, packetId);
        if (count === 0) {
          if (packet.status !== "PENDING") throw alreadyDecided(packet);
          throw new AppError("CONFLICT", { message: `packet ${packetId} changed`, userMessage: "The packet changed at the same moment. Reload and try again." });
        }
        await appendEvents(tx, packet.runId, events, now());
        return packet;
      });
    }
  };
}

function alreadyDecided(packet: DecisionPacket) {
  return new AppError("PACKET_ALREADY_DECIDED", {
    message: `packet ${packet.id} is already ${packet.status}`,
    userMessage: packet.decidedBy
      ? `This packet was already decided (${packet.status.toLowerCase()}) by ${packet.decidedBy}.`
      : `This packet is already ${packet.status.toLowerCase()}.`,
  });
}
