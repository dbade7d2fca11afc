import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SessionUser } from "../lib/auth/rbac";
import { createDb, type Db } from "../lib/db";
import {
  DECISION_HISTORY_CSV_HEADER,
  findDecisionHistory,
  iterateDecisionHistory,
  type DecidedStatus,
  type DecisionHistoryFilter,
  type HistoryEntry,
} from "../lib/queries/decision-history";
import { recordQueries } from "./support/query-recorder";
import { providers, uid } from "./support/runtime";

// The decision history on both databases: keyset paging (both ways, across decisions of the same
// millisecond), each filter and the day boundaries in UTC, the runs' next events, and the CSV export
// route, whose rows must be the filtered history's.

// The export route asks Auth.js for the person; the test says who it is.
const session = vi.hoisted(() => ({ user: null as SessionUser | null }));
vi.mock("@/lib/auth/session", () => ({ getCurrentUser: async () => session.user }));

type PacketSpec = {
  key: string;
  tool: "refund" | "email";
  status: DecidedStatus;
  by: string;
  at: string;
  approvers?: string[];
  reason?: string;
  instruction?: string;
  run?: string;
};

describe.each(providers())("decision history [%s]", (_provider, url) => {
  let db: Db;
  const s = uid("dh"); // this file's packets, tools and people; its days (2031) are after every other test's
  const rita = `rita-${s}@example.com`;
  const sam = `sam-${s}@example.com`;
  const tools = { refund: `${s}.refund`, email: `${s}.email` };
  const idOf = (key: string) => `pkt_${s}_${key}`; // within a test, ids differ in their last letter only: same order in every collation
  const specs: PacketSpec[] = [
    { key: "a", tool: "refund", status: "APPROVED", by: rita, at: "2031-03-01T00:00:00.000Z", run: "shared" },
    {
      key: "b",
      tool: "refund",
      status: "REJECTED",
      by: sam,
      at: "2031-03-01T23:59:59.999Z",
      run: "shared",
      reason: 'duplicate, see "ticket 7"\n=cmd',
    },
    { key: "c", tool: "refund", status: "EDITED", by: rita, at: "2031-03-02T12:00:00.000Z" },
    {
      key: "d",
      tool: "refund",
      status: "REDIRECTED",
      by: sam,
      at: "2031-03-02T12:00:00.000Z",
      instruction: "@offer store credit",
    },
    { key: "e", tool: "refund", status: "APPROVED", by: sam, at: "2031-03-02T12:00:00.000Z", approvers: [rita, sam] }, // four eyes: rita approved first
    { key: "f", tool: "email", status: "EXPIRED", by: "policy:expiry", at: "2031-03-03T00:00:00.000Z" },
    { key: "g", tool: "email", status: "STALE", by: rita, at: "2031-02-28T23:59:59.999Z", approvers: [rita] },
    { key: "h", tool: "email", status: "APPROVED", by: rita, at: "2031-03-03T00:00:00.000Z", approvers: [rita] },
  ];
  /** Newest decision first; decisions of the same millisecond by id, descending. */
  const newestFirst = ["h", "f", "e", "d", "c", "b", "a", "g"];
  const ours = { from: "2031-02-28", to: "2031-03-03" } satisfies DecisionHistoryFilter;

  async function createRun(id: string) {
    await db.run.create({
      data: { id, agentSlug: `agent-${s}`, agentVersion: "1", status: "COMPLETED", input: "{}", state: "{}" },
    });
  }

  async function createDecidedPacket(spec: PacketSpec) {
    const runId = `run_${s}_${spec.run ?? spec.key}`;
    if (!(await db.run.findUnique({ where: { id: runId } }))) await createRun(runId);
    const decidedAt = new Date(spec.at);
    const decision = spec.reason
      ? { decision: "reject", reason: spec.reason }
      : spec.instruction
        ? { decision: "redirect", instruction: spec.instruction }
        : { decision: "approve" };
    await db.decisionPacket.create({
      data: {
        id: idOf(spec.key),
        runId,
        step: 1,
        kind: "APPROVAL",
        tool: tools[spec.tool],
        args: "{}",
        digest: "d",
        status: spec.status,
        requestedBy: `agent:agent-${s}`,
        packet: JSON.stringify({
          impact: `refunds $240.00 on order ${spec.key}, partly`,
          evidence: [],
          options: ["approve", "reject"],
        }),
        requiredApprovals: spec.approvers?.length ?? 1,
        decision: JSON.stringify(decision),
        decidedBy: spec.by,
        decidedAt,
        createdAt: new Date(decidedAt.getTime() - 90_000),
        approvals: {
          create: (spec.approvers ?? []).map((approver, i, all) => ({
            approver,
            at: new Date(decidedAt.getTime() - (all.length - 1 - i) * 60_000),
          })),
        },
      },
    });
  }

  beforeAll(async () => {
    db = createDb(url);
    for (const spec of specs) await createDecidedPacket(spec);
    // A pending packet is not history.
    await createRun(`run_${s}_pending`);
    await db.decisionPacket.create({
      data: {
        id: idOf("pending"),
        runId: `run_${s}_pending`,
        step: 1,
        kind: "APPROVAL",
        tool: tools.refund,
        args: "{}",
        digest: "d",
        status: "PENDING",
        requestedBy: "agent:x",
        packet: "{}",
      },
    });
    // What the shared run did: a's decision, b's decision, and the steps around them.
    const event = (seq: number, type: string, at: string) => ({
      runId: `run_${s}_shared`,
      seq,
      step: seq,
      type,
      data: "{}",
      at: new Date(at),
    });
    await db.traceEvent.createMany({
      data: [
        event(1, "run.created", "2031-02-28T10:00:00.000Z"),
        event(2, "gate.requested", "2031-02-28T23:58:30.000Z"),
        event(3, "gate.decided", "2031-03-01T00:00:00.000Z"),
        event(4, "tool.called", "2031-03-01T00:00:00.000Z"),
        event(5, "gate.approval_recorded", "2031-03-01T00:00:01.000Z"),
        event(6, "model.decided", "2031-03-01T00:00:02.000Z"),
        event(7, "gate.decided", "2031-03-01T23:59:59.999Z"),
        event(8, "tool.result", "2031-03-02T00:00:00.000Z"),
        event(9, "model.decided", "2031-03-02T00:00:01.000Z"),
        event(10, "tool.called", "2031-03-02T00:00:02.000Z"),
        event(11, "tool.result", "2031-03-02T00:00:03.000Z"),
        event(12, "run.status", "2031-03-02T00:00:04.000Z"),
      ],
    });
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  const keysOf = (entries: HistoryEntry[]) => entries.map((e) => e.packet.id.slice(idOf("").length));

  /** Every page from the newest on, following the older cursors. */
  async function olderPages(filter: DecisionHistoryFilter, pageSize: number) {
    const pages: HistoryEntry[][] = [];
    let cursor: string | undefined;
    do {
      const page = await findDecisionHistory(db, { ...filter, cursor }, pageSize);
      pages.push(page.entries);
      cursor = page.olderCursor ?? undefined;
    } while (cursor);
    return pages;
  }

  it("pages newest first: every decided packet exactly once, ties on decidedAt broken by id, across page boundaries", async () => {
    const pages = await olderPages(ours, 2); // h f | e d | c b | a g: the e-d-c tie spans two pages
    expect(pages.map(keysOf)).toEqual([
      ["h", "f"],
      ["e", "d"],
      ["c", "b"],
      ["a", "g"],
    ]);

    // The whole history (other files' decisions too): each once, in order, ours among them, none pending.
    const all = (await olderPages({}, 25)).flat();
    const ids = all.map((e) => e.packet.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id.startsWith(idOf("")))).toEqual(newestFirst.map(idOf));
    expect(all.every((e) => e.packet.status !== "PENDING" && e.packet.decidedAt)).toBe(true);
    const times = all.map((e) => e.packet.decidedAt!.getTime());
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });

  it("pages back up with the newer cursor, and a newer page that reaches the top is the first page", async () => {
    const first = await findDecisionHistory(db, ours, 2);
    expect(first.newerCursor).toBeNull();
    const second = await findDecisionHistory(db, { ...ours, cursor: first.olderCursor! }, 2);
    const third = await findDecisionHistory(db, { ...ours, cursor: second.olderCursor! }, 2);
    expect(keysOf(third.entries)).toEqual(["c", "b"]);
    const backToSecond = await findDecisionHistory(db, { ...ours, cursor: third.newerCursor! }, 2);
    expect(keysOf(backToSecond.entries)).toEqual(["e", "d"]);
    expect(backToSecond.olderCursor).not.toBeNull();
    const backToFirst = await findDecisionHistory(db, { ...ours, cursor: backToSecond.newerCursor! }, 2);
    expect(keysOf(backToFirst.entries)).toEqual(["h", "f"]);
    expect(backToFirst.newerCursor).toBeNull();
    // Above c (the 3rd page's first) are only four: a newer page of 5 would be short, the first page (full) is shown instead.
    const short = await findDecisionHistory(db, { ...ours, cursor: third.newerCursor! }, 5);
    expect(keysOf(short.entries)).toEqual(["h", "f", "e", "d", "c"]);
    expect(short.newerCursor).toBeNull();
  });

  it("filters by reviewer (who made the deciding call), tool and decision, alone and together", async () => {
    const keys = async (filter: DecisionHistoryFilter) => keysOf((await olderPages(filter, 25)).flat());
    expect(await keys({ reviewer: rita })).toEqual(["h", "c", "a", "g"]); // not e: rita approved it first, sam's approval decided it
    expect(await keys({ reviewer: sam })).toEqual(["e", "d", "b"]);
    expect(await keys({ reviewer: "policy:expiry", ...ours })).toEqual(["f"]);
    expect(await keys({ tool: tools.email })).toEqual(["h", "f", "g"]);
    expect(await keys({ tool: tools.refund, decision: "APPROVED" })).toEqual(["e", "a"]);
    expect(await keys({ decision: "STALE", ...ours })).toEqual(["g"]);
    expect(await keys({ reviewer: sam, tool: tools.refund, decision: "REJECTED" })).toEqual(["b"]);
    expect(await keys({ reviewer: `nobody-${s}@example.com` })).toEqual([]);
  });

  it("takes from and to as whole days in UTC, both included: the first and the last millisecond of a day are in it", async () => {
    const keys = async (filter: DecisionHistoryFilter) => keysOf((await olderPages(filter, 2)).flat());
    expect(await keys({ from: "2031-03-01", to: "2031-03-01" })).toEqual(["b", "a"]);
    expect(await keys({ tool: tools.email, to: "2031-02-28" })).toEqual(["g"]);
    expect(await keys({ tool: tools.email, from: "2031-03-01" })).toEqual(["h", "f"]);
    expect(await keys({ tool: tools.refund, from: "2031-03-01", to: "2031-03-02" })).toEqual(["e", "d", "c", "b", "a"]);
    expect(await keys({ from: "2031-03-04", to: "2031-03-31" })).toEqual([]);
    // A cursor from outside a narrower range (the range was changed while paging) leaves the range whole.
    const pageOfH = await findDecisionHistory(db, ours, 1);
    expect(keysOf(pageOfH.entries)).toEqual(["h"]);
    const cursorAtH = pageOfH.olderCursor!;
    expect(
      keysOf((await findDecisionHistory(db, { from: "2031-03-01", to: "2031-03-01", cursor: cursorAtH }, 5)).entries),
    ).toEqual(["b", "a"]);
  });

  it("shows what each run did after its decision, decision events left out, for the page in one packet query", async () => {
    const recorder = recordQueries(db);
    const { entries } = await findDecisionHistory(recorder.db, { from: "2031-03-01", to: "2031-03-01" });
    const [b, a] = entries;
    expect(a.next.map((e) => [e.seq, e.type])).toEqual([
      [4, "tool.called"],
      [6, "model.decided"],
      [8, "tool.result"],
      [9, "model.decided"],
      [10, "tool.called"],
    ]);
    expect(b.next.map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
    expect(b.next[0].at).toEqual(new Date("2031-03-02T00:00:00.000Z"));
    expect(recorder.queries.map((q) => [q.model, q.operation])).toEqual([["DecisionPacket", "findMany"]]); // the events: one raw statement, not a query per entry
    expect(a).toMatchObject({
      waitedMs: 90_000,
      run: { status: "COMPLETED", agent: `agent-${s}` },
      packet: { decidedBy: rita, status: "APPROVED" },
    });
  });

  it("iterates the whole filtered history in keyset batches, the same entries as the pages", async () => {
    const iterated: string[] = [];
    for await (const entry of iterateDecisionHistory(db, { tool: tools.refund }, 2)) iterated.push(entry.packet.id);
    expect(iterated).toEqual(["e", "d", "c", "b", "a"].map(idOf));
  });

  describe("CSV export route", () => {
    let previousUrl: string | undefined;
    beforeAll(() => {
      previousUrl = process.env.DATABASE_URL;
      process.env.DATABASE_URL = url; // the route's getDb() follows it
    });
    afterAll(() => {
      if (previousUrl === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previousUrl;
      session.user = null;
    });

    async function exportCsv(query: string) {
      const { GET } = await import("../app/api/console/packets/history.csv/route");
      return GET(new Request(`http://localhost/api/console/packets/history.csv?${query}`), {
        params: Promise.resolve({}),
      });
    }

    it("refuses a caller who is not signed in, and a filter that does not parse", async () => {
      session.user = null;
      expect((await exportCsv("")).status).toBe(401);
      session.user = { id: "usr_1", email: rita, name: null, role: "reviewer" };
      const bad = await exportCsv("from=2031-03-10&to=2031-03-01");
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({
        error: { code: "INVALID_INPUT", fieldErrors: { to: expect.any(Array) } },
      });
      expect((await exportCsv("decision=PENDING")).status).toBe(400);
    });

    it("downloads the filtered history as CSV: a header, then the same rows as the history, escaped", async () => {
      session.user = { id: "usr_1", email: rita, name: null, role: "reviewer" };
      const response = await exportCsv(
        `tool=${encodeURIComponent(tools.refund)}&from=2031-02-28&to=2031-03-03&reviewer=`,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(response.headers.get("content-disposition")).toBe(
        'attachment; filename="decision-history_2031-02-28_2031-03-03.csv"',
      );
      const [header, ...rows] = parseCsv(await response.text());
      expect(header).toEqual([...DECISION_HISTORY_CSV_HEADER]);
      const history = (await olderPages({ tool: tools.refund, ...ours }, 2)).flat();
      expect(rows.map((row) => row[0])).toEqual(history.map((e) => e.packet.id));
      const record = (key: string) =>
        Object.fromEntries(header.map((name, i) => [name, rows.find((row) => row[0] === idOf(key))![i]]));
      expect(record("b")).toEqual({
        packetId: idOf("b"),
        runId: `run_${s}_shared`,
        agent: `agent-${s}`,
        tool: tools.refund,
        kind: "APPROVAL",
        decision: "REJECTED",
        decidedBy: sam,
        approvers: "",
        decidedAt: "2031-03-01T23:59:59.999Z",
        createdAt: "2031-03-01T23:58:29.999Z",
        waitedMs: "90000",
        reason: 'duplicate, see "ticket 7"\n=cmd',
        instruction: "",
        impact: "refunds $240.00 on order b, partly",
      });
      expect(record("d").instruction).toBe("'@offer store credit"); // a formula-like cell, neutralised
      expect(record("e").approvers).toBe(`${rita} ${sam}`);
    });
  });
});

/** RFC 4180, as a spreadsheet reads it: quoted cells may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let isQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (isQuoted && char === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (char === '"') {
      isQuoted = !isQuoted;
    } else if (!isQuoted && char === ",") {
      row.push(cell);
      cell = "";
    } else if (!isQuoted && char === "\r" && text[i + 1] === "\n") {
      rows.push([...row, cell]);
      row = [];
      cell = "";
      i++;
    } else {
      cell += char;
    }
  }
  return rows;
}
