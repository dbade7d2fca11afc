// `tether export`: the runs (created since a date, or all) with everything that makes up their record, as
// the lines of a backup file (lib/backup/format.ts), produced a page at a time: a deployment with many
// long runs is exported without holding more than a page of rows. Each run is read as it is at the moment
// its rows are read; a run moving meanwhile (a live worker) may show a later step in its trace than in its
// head. Back up a quiet deployment, or finished runs, for an exact copy.
import { providerOfDb, type Db } from "@/lib/db";
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  delegateOf,
  encodeValue,
  type BackupHeader,
  type BackupTable,
  type EndLine,
} from "./format";

export type ExportOptions = {
  /** Only runs created at or after this instant. */
  since?: Date;
  /** Only these runs (with since, both must hold). */
  runIds?: string[];
  /** Rows read per query (tests make it small to cross page boundaries). */
  pageSize?: number;
  now?: () => Date;
};

/** The lines of the backup, each ending with a newline. */
export async function* exportBackup(db: Db, opts: ExportOptions = {}): AsyncGenerator<string> {
  const pageSize = opts.pageSize ?? 200;
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    exportedAt: (opts.now?.() ?? new Date()).toISOString(),
    since: opts.since?.toISOString() ?? null,
    database: providerOfDb(db),
  };
  yield line(header);
  let rows = 0;
  let runs = 0;
  const versionsWritten = new Set<string>();
  const workspacesWritten = new Set<string>();
  const emit = (table: BackupTable, row: Record<string, unknown>) => {
    rows++;
    return line({ table, row: Object.fromEntries(Object.entries(row).map(([k, v]) => [k, encodeValue(v)])) });
  };

  const where = {
    ...(opts.since ? { createdAt: { gte: opts.since } } : {}),
    ...(opts.runIds ? { id: { in: opts.runIds } } : {}),
  };
  let after: { createdAt: Date; id: string } | undefined;
  for (;;) {
    // Keyset pagination over (createdAt, id): a run created meanwhile does not shift the pages.
    const page = await db.run.findMany({
      where: after
        ? {
            AND: [
              where,
              { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] },
            ],
          }
        : where,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: pageSize,
    });
    for (const run of page) {
      if (!workspacesWritten.has(run.workspaceId)) {
        workspacesWritten.add(run.workspaceId);
        const workspace = await db.workspace.findUnique({ where: { id: run.workspaceId } });
        if (workspace) yield emit("Workspace", workspace);
      }
      const versionKey = `${run.agentSlug}@${run.agentVersion}`;
      if (!versionsWritten.has(versionKey)) {
        versionsWritten.add(versionKey);
        const version = await db.agentVersion.findUnique({
          where: { slug_version: { slug: run.agentSlug, version: run.agentVersion } },
        });
        if (version) yield emit("AgentVersion", version);
      }
      yield emit("Run", run);
      runs++;
      for (const table of ["Checkpoint", "StateEntry", "TraceEvent"] as const) {
        for await (const row of bySeq(db, table, run.id, pageSize)) yield emit(table, row);
      }
      for (const intent of await db.effectIntent.findMany({
        where: { runId: run.id },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }))
        yield emit("EffectIntent", intent);
      const packets = await db.decisionPacket.findMany({
        where: { runId: run.id },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      for (const packet of packets) {
        yield emit("DecisionPacket", packet);
        for (const approval of await db.packetApproval.findMany({
          where: { packetId: packet.id },
          orderBy: [{ at: "asc" }, { approver: "asc" }],
        }))
          yield emit("PacketApproval", approval);
      }
      for (const signal of await db.signal.findMany({
        where: { runId: run.id },
        orderBy: [{ receivedAt: "asc" }, { id: "asc" }],
      }))
        yield emit("Signal", signal);
      const targets = [run.id, ...packets.map((p) => p.id)];
      for (const entry of await db.auditLog.findMany({
        where: { target: { in: targets } },
        orderBy: [{ at: "asc" }, { id: "asc" }],
      }))
        yield emit("AuditLog", entry);
    }
    if (page.length < pageSize) break;
    const last = page[page.length - 1];
    after = { createdAt: last.createdAt, id: last.id };
  }
  const end: EndLine = { end: { rows, runs } };
  yield line(end);
}

/** A run's rows of a (runId, seq) table, oldest first, a page at a time. */
async function* bySeq(
  db: Db,
  table: "Checkpoint" | "StateEntry" | "TraceEvent",
  runId: string,
  pageSize: number,
): AsyncGenerator<Record<string, unknown>> {
  let after: number | undefined;
  for (;;) {
    const where = after === undefined ? { runId } : { runId, seq: { gt: after } };
    const page = await delegateOf(db, table).findMany({ where, orderBy: { seq: "asc" }, take: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    after = page[page.length - 1].seq as number;
  }
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
