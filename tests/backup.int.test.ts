import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { builtInAgents } from "../lib/agents";
import { recordAgentVersions } from "../lib/agents/versions";
import { writeAudit } from "../lib/audit/audit-log";
import { exportBackup, type ExportOptions } from "../lib/backup/export";
import { BACKUP_TABLES, delegateOf, type BackupTable } from "../lib/backup/format";
import { BackupFileError, importBackup, type BackupSource } from "../lib/backup/import";
import type { Db } from "../lib/db";
import { getPacketView } from "../lib/queries/packets";
import { findCheckpoint, findCheckpointSummaries } from "../lib/queries/run-checkpoints";
import { findRunEvents } from "../lib/queries/run-events";
import { findTraceSummary } from "../lib/queries/run-trace-summary";
import { getRunDetail } from "../lib/queries/runs";
import { getRuntime } from "../lib/runtime.server";
import { DEFAULT_WORKSPACE_ID, inWorkspace } from "../lib/runtime/workspace";
import { createWorkspace } from "../lib/commands/create-workspace";
import { refundAgent } from "./support/agents";
import { createTestRuntime, grant, uid } from "./support/runtime";
import { worldTools } from "./support/tools";
import { until } from "./support/until";
import { startWorld, type World } from "./support/world";

// Backups you can restore: runs made by the engine on one database (completed with effects, parked at a
// gate with its packet, approved through a gate), exported and imported into the other database — SQLite
// into Postgres and Postgres into SQLite — read the same through the run page's read models; importing
// again changes nothing; a bad file is refused at its line with nothing written; --since filters; and the
// CLI (`tether export` / `tether import`, DATABASE_URL choosing the database) does the same.

const execFileAsync = promisify(execFile);
const pgUrl = inject("postgresUrl");
const sqliteUrl = inject("sqliteUrl");
const TABLES = Object.keys(BACKUP_TABLES) as BackupTable[];

type Side = { name: string; url: string; t: ReturnType<typeof createTestRuntime> };

async function exportText(db: Db, opts: ExportOptions): Promise<string> {
  let text = "";
  for await (const line of exportBackup(db, opts)) text += line;
  return text;
}
const sourceOf = (text: string): BackupSource =>
  async function* lines() {
    yield* text.split("\n").filter((l, i, all) => i < all.length - 1 || l !== "");
  };
const rowCounts = async (db: Db) =>
  Object.fromEntries(
    await Promise.all(
      TABLES.map(async (t) => [t, await (delegateOf(db, t) as unknown as { count(): Promise<number> }).count()]),
    ),
  );

/** What the run page and the packet page show of a run, as they cross the wire (the read time left out). */
async function runPage(side: Side, runId: string) {
  process.env.DATABASE_URL = side.url; // the page's read models go through the console's composition root, which follows it
  const detail = await getRunDetail(runId);
  if (detail?.kind !== "readable") throw new Error(`run ${runId} is not readable on ${side.name}`);
  const { checkpoints } = await findCheckpointSummaries(side.t.db, runId, { limit: 500 });
  const packets = await side.t.store.findPackets({ runId });
  const page = {
    detail: { ...detail, snapshot: { ...detail.snapshot, at: undefined } },
    events: await findRunEvents(side.t.db, runId, { after: 0, limit: 500 }),
    checkpoints: await Promise.all(checkpoints.map((c) => findCheckpoint(side.t.db, runId, c.seq))),
    summary: await findTraceSummary(side.t.db, runId),
    intents: await side.t.store.listIntents(runId),
    packets: await Promise.all(packets.map((p) => getPacketView(p.id))),
  };
  return JSON.parse(JSON.stringify(page));
}

describe.skipIf(!pgUrl)("backups: export and import across SQLite and Postgres", () => {
  let world: World;
  let sqlite: Side;
  let postgres: Side;
  const made: Record<string, { completed: string; parked: string; approved: string }> = {};

  /** The three kinds of run, made by the engine on one side; an audit row for the parked run's packet. */
  async function makeRuns(side: Side) {
    const agent = refundAgent(uid("backup-refund"));
    side.t.runtime.context.agents.set(agent.slug, agent as never);
    await grant(side.t.runtime, agent);
    await recordAgentVersions(side.t.db, [agent]);
    const order = (cents: number) => {
      const id = uid("ord");
      world.orders.set(id, { id, amountCents: cents, status: "paid" });
      return id;
    };
    const start = async (cents: number) =>
      (await side.t.runtime.startRun({ agent: agent.slug, input: { orderId: order(cents), email: "c@example.com" } }))
        .run.id;
    const drain = () => side.t.runtime.createWorker().drain();

    const completed = await start(1_200);
    await drain();
    await side.t.runtime.permissions.put(
      { agent: agent.slug, tool: "payments.refund", effect: "require_approval" },
      { by: "admin@test" },
    );
    const parked = await start(50_000);
    const approved = await start(70_000);
    await drain();
    const [toApprove] = await side.t.store.findPackets({ runId: approved });
    await side.t.runtime.decidePacket({
      packetId: toApprove.id,
      reviewer: "rita@example.com",
      input: { decision: "approve" },
    });
    await drain();
    const [parkedPacket] = await side.t.store.findPackets({ runId: parked });
    await writeAudit(side.t.db, {
      actor: "olga@example.com",
      action: "packets.assign",
      target: parkedPacket.id,
      data: { assignee: "rita@example.com" },
    });

    expect(await side.t.runtime.getRun(completed)).toMatchObject({ status: "COMPLETED" });
    expect(await side.t.runtime.getRun(parked)).toMatchObject({ status: "WAITING_APPROVAL" });
    expect(await side.t.runtime.getRun(approved)).toMatchObject({ status: "COMPLETED" });
    expect(await side.t.store.listIntents(completed)).toEqual(
      expect.arrayContaining([expect.objectContaining({ tool: "payments.refund", status: "SUCCEEDED" })]),
    );
    made[side.name] = { completed, parked, approved };
  }

  beforeAll(async () => {
    world = await startWorld();
    sqlite = { name: "sqlite", url: sqliteUrl, t: createTestRuntime(sqliteUrl, { tools: worldTools(world.url) }) };
    postgres = { name: "postgres", url: pgUrl!, t: createTestRuntime(pgUrl!, { tools: worldTools(world.url) }) };
    for (const side of [sqlite, postgres]) {
      // The console's runtime records the built-in agents' versions once, in the background: let it finish
      // before anything is counted.
      process.env.DATABASE_URL = side.url;
      getRuntime();
      await until(
        "built-in agent versions recorded",
        async () =>
          (await side.t.db.agentVersion.count({ where: { slug: { in: builtInAgents.map((a) => a.slug) } } })) >=
          builtInAgents.length,
      );
      await makeRuns(side);
    }
  }, 120_000);
  afterAll(async () => {
    await sqlite?.t.close();
    await postgres?.t.close();
    await world?.close();
  });

  for (const [from, to] of [
    ["sqlite", "postgres"],
    ["postgres", "sqlite"],
  ] as const) {
    it(`${from} → ${to}: every run reads the same on its page; importing again changes nothing`, async () => {
      const source = from === "sqlite" ? sqlite : postgres;
      const target = to === "sqlite" ? sqlite : postgres;
      const ids = Object.values(made[from]);
      const before = await Promise.all(ids.map((id) => runPage(source, id)));
      // A small page size: the export crosses page boundaries of runs and of a run's rows.
      const text = await exportText(source.t.db, { runIds: ids, pageSize: 2 });
      const lines = text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ format: "tether-backup", version: 2, database: from });
      expect(lines.at(-1)).toEqual({ end: { rows: lines.length - 2, runs: 3 } });
      const tables = new Set(lines.slice(1, -1).map((l) => l.table));
      expect([...tables].sort()).toEqual([
        "AgentVersion",
        "AuditLog",
        "Checkpoint",
        "DecisionPacket",
        "EffectIntent",
        "PacketApproval",
        "Run",
        "StateEntry",
        "TraceEvent",
        "Workspace",
      ]);
      // Every column of a row travels, not a chosen few: a run's line holds every scalar column of Run.
      expect(Object.keys(lines.find((l) => l.table === "Run").row).sort()).toEqual(
        Object.keys(await source.t.db.run.findUniqueOrThrow({ where: { id: ids[0] } })).sort(),
      );

      const report = await importBackup(target.t.db, sourceOf(text));
      expect(report.runs).toMatchObject({ imported: 3, skipped: 0 });
      expect(report.written).toMatchObject({ Run: 3, AgentVersion: 1, PacketApproval: 1, DecisionPacket: 2 });
      expect(report.skipped).toMatchObject({ Workspace: 1 }); // the default workspace, which every deployment has
      // The console's audit rows about the runs travel with them: the reviewer's decision, and the assignment.
      expect(
        lines
          .filter((l) => l.table === "AuditLog")
          .map((l) => l.row.action)
          .sort(),
      ).toEqual(["packets.assign", "packets.decide"]);
      expect(report.written.AuditLog).toBe(2);
      const after = await Promise.all(ids.map((id) => runPage(target, id)));
      expect(after).toEqual(before);

      const counts = await rowCounts(target.t.db);
      const again = await importBackup(target.t.db, sourceOf(text));
      expect(again.runs).toEqual({ imported: 0, skipped: 3, skippedIds: ids, differing: [] });
      expect(again.written).toEqual({});
      expect(again.skipped).toMatchObject({ Run: 3, AgentVersion: 1 });
      expect(await rowCounts(target.t.db)).toEqual(counts);
    });
  }

  it("a run restored into the other database carries on there: its gate is decided (asked again under this deployment's rule) and the refund happens once", async () => {
    const { parked } = made.sqlite; // imported into Postgres by the test above
    const [packet] = await postgres.t.store.findPackets({ runId: parked });
    expect(packet).toMatchObject({ status: "PENDING" });
    const agent = refundAgent((await postgres.t.runtime.getRun(parked)).agentSlug);
    postgres.t.runtime.context.agents.set(agent.slug, agent as never);
    // Permissions are this deployment's configuration, not part of a backup: the rule here is another one.
    await grant(postgres.t.runtime, agent, { "payments.refund": { effect: "require_approval" } });
    const approve = async (packetId: string) => {
      await postgres.t.runtime.decidePacket({ packetId, reviewer: "rita@example.com", input: { decision: "approve" } });
      await postgres.t.runtime.createWorker().drain();
    };
    await approve(packet.id);
    // The approval was bound to the source deployment's rule: the engine does not act on it, it asks again.
    const events = await postgres.t.store.listEvents(parked);
    expect(events.find((e) => e.type === "gate.revalidated")?.data.why).toMatch(/the permission rule changed/);
    const again = (await postgres.t.store.findPackets({ runId: parked })).find((p) => p.status === "PENDING");
    expect(world.effects("payments").filter((e) => e.runId === parked)).toHaveLength(0);
    await approve(again!.id);
    expect(await postgres.t.runtime.getRun(parked)).toMatchObject({ status: "COMPLETED" });
    expect(world.effects("payments").filter((e) => e.runId === parked)).toHaveLength(1);
  });

  describe("a bad file is refused at its line, and nothing is written", () => {
    let text: string;
    let lines: string[];
    beforeAll(async () => {
      // Runs the other side does not have yet (fresh ones), so a write would show in the counts.
      const side = sqlite;
      const agent = refundAgent(uid("backup-bad"));
      side.t.runtime.context.agents.set(agent.slug, agent as never);
      await grant(side.t.runtime, agent);
      const ids: string[] = [];
      for (const cents of [100, 200]) {
        const orderId = uid("ord");
        world.orders.set(orderId, { id: orderId, amountCents: cents, status: "paid" });
        ids.push(
          (await side.t.runtime.startRun({ agent: agent.slug, input: { orderId, email: "c@example.com" } })).run.id,
        );
      }
      await side.t.runtime.createWorker().drain();
      text = await exportText(side.t.db, { runIds: ids });
      lines = text.trimEnd().split("\n");
    });

    async function refused(file: string, line: number, message: RegExp) {
      const counts = await rowCounts(postgres.t.db);
      const error = await importBackup(postgres.t.db, sourceOf(file)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(BackupFileError);
      expect((error as BackupFileError).line).toBe(line);
      expect((error as Error).message).toMatch(new RegExp(`^line ${line}: ${message.source}`));
      expect(await rowCounts(postgres.t.db)).toEqual(counts);
    }
    const replace = (at: number, line: string) => lines.map((l, i) => (i === at - 1 ? line : l)).join("\n") + "\n";
    /** The last line of a table's rows (the second run's: the first run would be written first if this were checked late). */
    const lastOf = (table: string) => lines.findLastIndex((l) => l.includes(`"table":"${table}"`)) + 1;

    it("a line that is not JSON", async () => {
      await refused(
        replace(lastOf("TraceEvent"), '{"table":"TraceEvent","row":{"runId"'),
        lastOf("TraceEvent"),
        /not JSON/,
      );
    });
    it("a value of the wrong type, a date that is not one, a column this database does not have, a missing required column", async () => {
      const at = lastOf("TraceEvent");
      const row = JSON.parse(lines[at - 1]);
      await refused(
        replace(at, JSON.stringify({ ...row, row: { ...row.row, seq: "7" } })),
        at,
        /TraceEvent\.seq: expected a 32-bit integer/,
      );
      await refused(
        replace(at, JSON.stringify({ ...row, row: { ...row.row, at: "yesterday" } })),
        at,
        /TraceEvent\.at: expected an ISO 8601 date-time/,
      );
      await refused(
        replace(at, JSON.stringify({ ...row, row: { ...row.row, colour: "blue" } })),
        at,
        /TraceEvent has no column "colour"/,
      );
      const { type: _dropped, ...withoutType } = row.row;
      await refused(replace(at, JSON.stringify({ ...row, row: withoutType })), at, /TraceEvent row without "type"/);
      await refused(
        replace(at, JSON.stringify({ ...row, row: { ...row.row, data: null } })),
        at,
        /TraceEvent\.data is null/,
      );
      await refused(replace(at, JSON.stringify({ table: "Secrets", row: {} })), at, /unknown table "Secrets"/);
    });
    it("a row away from its run, a row twice, a header that is not one, a file cut short", async () => {
      const firstRunEvent = lines.findIndex((l) => l.includes('"table":"TraceEvent"')) + 1;
      const at = lastOf("TraceEvent");
      await refused(replace(at, lines[firstRunEvent - 1]), at, /a TraceEvent of run .* among the rows of run /);
      await refused(replace(at, lines[at - 2]), at, /TraceEvent .* appears twice/);
      await refused(
        replace(1, JSON.stringify({ format: "tether-backup", version: 99 })),
        1,
        /backup format version 99/,
      );
      await refused(replace(1, '{"hello":1}'), 1, /not a Tether backup/);
      await refused(lines.slice(0, -1).join("\n") + "\n", lines.length - 1, /the file ends without its end line/);
      await refused(lines.filter((_, i) => i !== at - 1).join("\n") + "\n", lines.length - 1, /the end line counts/);
    });
    it("the file whole imports", async () => {
      expect((await importBackup(postgres.t.db, sourceOf(text))).runs).toMatchObject({ imported: 2 });
    });
  });

  it("a run the database still refuses (a key already held by another run's row) is rolled back whole; the runs before it stay, and the error says so", async () => {
    const agent = refundAgent(uid("backup-clash"));
    sqlite.t.runtime.context.agents.set(agent.slug, agent as never);
    await grant(sqlite.t.runtime, agent);
    const ids: string[] = [];
    for (const cents of [300, 400]) {
      const orderId = uid("ord");
      world.orders.set(orderId, { id: orderId, amountCents: cents, status: "paid" });
      ids.push(
        (await sqlite.t.runtime.startRun({ agent: agent.slug, input: { orderId, email: "c@example.com" } })).run.id,
      );
    }
    await sqlite.t.runtime.createWorker().drain();
    const taken = (await postgres.t.store.listIntents(made.sqlite.completed))[0].id; // imported into Postgres above
    const lines = (await exportText(sqlite.t.db, { runIds: ids })).trimEnd().split("\n");
    const clash = lines.findLastIndex((l) => l.includes('"table":"EffectIntent"')); // the second run's
    const row = JSON.parse(lines[clash]);
    lines[clash] = JSON.stringify({ ...row, row: { ...row.row, id: taken } });
    const error = await importBackup(postgres.t.db, sourceOf(lines.join("\n") + "\n")).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(
        new RegExp(
          `^run ${ids[1]} \\(line \\d+\\) could not be written, nothing of it was: .*1 run\\(s\\) before it were imported`,
          "s",
        ),
      ),
    });
    expect(await postgres.t.db.run.findUnique({ where: { id: ids[0] }, select: { id: true } })).toEqual({ id: ids[0] });
    expect(await postgres.t.db.run.findUnique({ where: { id: ids[1] } })).toBeNull();
    expect(await postgres.t.db.traceEvent.count({ where: { runId: ids[1] } })).toBe(0);
  });

  it("a run of another workspace arrives with its workspace; a workspace whose slug another one holds here is refused, with nothing written", async () => {
    const slug = uid("bk")
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, "-")
      .slice(0, 40);
    const admin = `${uid("root")}@example.com`;
    await sqlite.t.db.user.create({ data: { id: uid("usr"), email: admin, role: "admin", instanceAdmin: true } });
    const workspace = await createWorkspace({ db: sqlite.t.db }, { slug, name: "Backed up" }, { by: admin });
    const agent = refundAgent(uid("backup-ws"));
    sqlite.t.runtime.context.agents.set(agent.slug, agent as never);
    const runId = await inWorkspace(
      workspace.id,
      async () =>
        (await sqlite.t.runtime.startRun({ agent: agent.slug, input: { orderId: "o", email: "c@example.com" } })).run
          .id,
    );
    const text = await exportText(sqlite.t.db, { runIds: [runId] });
    expect(
      text
        .split("\n")
        .filter((l) => l.includes('"table":"Workspace"'))
        .map((l) => JSON.parse(l).row),
    ).toEqual([expect.objectContaining({ id: workspace.id, slug, name: "Backed up" })]);

    // Another deployment already calls a different workspace by that slug: refused at the Workspace line.
    const other = { id: uid("ws_other"), slug, name: "Someone else's" };
    await postgres.t.db.workspace.create({ data: other });
    const counts = await rowCounts(postgres.t.db);
    const error = await importBackup(postgres.t.db, sourceOf(text)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BackupFileError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^line 2: workspace ${workspace.id} is called "${slug}", which workspace ${other.id} is already called`,
      ),
    );
    expect(await rowCounts(postgres.t.db)).toEqual(counts);

    // Once that slug is free, the workspace and its run arrive, and the run is found in that workspace only.
    await postgres.t.db.workspace.delete({ where: { id: other.id } });
    const report = await importBackup(postgres.t.db, sourceOf(text));
    expect(report.written).toMatchObject({ Workspace: 1, Run: 1 });
    expect(
      await postgres.t.db.workspace.findUnique({ where: { id: workspace.id }, select: { slug: true, name: true } }),
    ).toEqual({ slug, name: "Backed up" });
    expect(
      await inWorkspace(workspace.id, () =>
        postgres.t.db.run.findUnique({ where: { id: runId }, select: { id: true } }),
      ),
    ).toEqual({ id: runId });
    expect(
      await inWorkspace(DEFAULT_WORKSPACE_ID, () =>
        postgres.t.db.run.findUnique({ where: { id: runId }, select: { id: true } }),
      ),
    ).toBeNull();
    expect((await importBackup(postgres.t.db, sourceOf(text))).skipped).toMatchObject({ Workspace: 1, Run: 1 });
  });

  it("--since: only the runs created at or after it", async () => {
    const agent = refundAgent(uid("backup-since"));
    sqlite.t.runtime.context.agents.set(agent.slug, agent as never);
    const first = (
      await sqlite.t.runtime.startRun({ agent: agent.slug, input: { orderId: "o", email: "c@example.com" } })
    ).run;
    await until("the clock moved on", () => Date.now() > first.createdAt.getTime() + 1);
    const second = (
      await sqlite.t.runtime.startRun({ agent: agent.slug, input: { orderId: "o", email: "c@example.com" } })
    ).run;
    const runsOf = async (since: Date) =>
      (await exportText(sqlite.t.db, { since, runIds: [first.id, second.id] }))
        .split("\n")
        .filter((l) => l.includes('"table":"Run"'))
        .map((l) => JSON.parse(l).row.id);
    expect(await runsOf(first.createdAt)).toEqual([first.id, second.id]);
    expect(await runsOf(second.createdAt)).toEqual([second.id]);
    expect(await runsOf(new Date(second.createdAt.getTime() + 1))).toEqual([]);
    const header = JSON.parse((await exportText(sqlite.t.db, { since: second.createdAt, runIds: [] })).split("\n")[0]);
    expect(header.since).toBe(second.createdAt.toISOString());
  });

  describe("the CLI: npx tether export / import, DATABASE_URL choosing the database", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), "tether-backup-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const tether = (args: string[], url: string) =>
      execFileAsync(process.execPath, ["bin/tether.mjs", ...args], {
        env: { ...process.env, DATABASE_URL: url, TETHER_DATA_DIR: "data/test", TETHER_BOOTSTRAP_TOKEN: "" },
        maxBuffer: 64 * 1024 * 1024,
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );

    it("exports from Postgres into a file, imports it into SQLite, a second import skips it, a bad file is refused with its line", async () => {
      const agent = refundAgent(uid("backup-cli"));
      postgres.t.runtime.context.agents.set(agent.slug, agent as never);
      const { run: made } = await postgres.t.runtime.startRun({
        agent: agent.slug,
        input: { orderId: "o", email: "c@example.com" },
      });
      const file = path.join(dir, "runs.jsonl");
      const exported = await tether(["export", "--run", made.id], pgUrl!);
      expect(exported).toMatchObject({ code: 0, stderr: "" });
      writeFileSync(file, exported.stdout);
      expect(exported.stdout.split("\n").filter((l) => l.includes('"table":"Run"'))).toHaveLength(1);

      const first = await tether(["import", file, "--json"], sqliteUrl);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout).runs).toMatchObject({ imported: 1, skipped: 0 });
      expect(await sqlite.t.runtime.getRun(made.id)).toMatchObject({ id: made.id, status: "QUEUED" });
      const second = await tether(["import", file, "--json"], sqliteUrl);
      expect(JSON.parse(second.stdout).runs).toMatchObject({ imported: 0, skipped: 1, skippedIds: [made.id] });

      const bad = path.join(dir, "bad.jsonl");
      writeFileSync(bad, readFileSync(file, "utf8").replace('"table":"Run"', '"table":"Rum"'));
      const refused = await tether(["import", bad], sqliteUrl);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/import refused, nothing was written: line 3: unknown table "Rum"/); // after the header and the workspace
      expect(await tether(["export", "--since", "last week"], sqliteUrl)).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/--since takes a date/),
      });
    }, 180_000);
  });
});
