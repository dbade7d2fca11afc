import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { IMPACT_RANK, type ImpactLevel } from "../lib/runtime/impact";
import { parseInboxFilters, SORTS, type InboxItem } from "../lib/inbox/queue";
import { findInboxPage } from "../lib/queries/inbox-page";
import { findPacketChanges, OVERLAP_MS } from "../lib/queries/packet-changes";
import { countPendingPackets } from "../lib/queries/packets";
import { filterInbox, sortInbox } from "./support/inbox-oracle";
import { providers, uid } from "./support/runtime";

// The inbox's database queries against the in-memory model of its orders and filters: every sort and
// filter, walked page by page with a small page size, yields exactly the model's list, each packet
// once; the totals are true for the filter; the change feed reports writes since its cursor.

const HOUR = 3_600_000;
const NOW = new Date("2026-06-01T12:00:00.000Z");
const LEVELS: ImpactLevel[] = ["low", "medium", "high"];
const QUEUES = ["default", "attention", "finance"];

describe.each(providers())("inbox pages in the database [%s]", (_provider, url) => {
  let db: Db;
  const agent = uid("inbox-page-agent");
  const me = `${uid("me")}@example.com`;
  let model: InboxItem[] = [];

  beforeAll(async () => {
    db = createDb(url);
    const runId = uid("run");
    await db.run.create({
      data: { id: runId, agentSlug: agent, agentVersion: "1", status: "WAITING_APPROVAL", input: "{}", state: "{}" },
    });
    // 60 packets: impact levels, deadlines (none, passed, within 1 h, within 24 h, later), ages (a few
    // created in the same millisecond, so the id breaks ties), queues and assignees all mixed.
    const rows = Array.from({ length: 60 }, (_, i) => {
      const level = LEVELS[i % 3];
      const deadline = [null, -HOUR, HOUR / 2, 5 * HOUR, 72 * HOUR][i % 5];
      const createdAt = new Date(NOW.getTime() - Math.floor(i / 2) * 37 * 60_000);
      return {
        id: `pkt_${agent}_${String(i).padStart(2, "0")}`,
        runId,
        step: i,
        kind: "APPROVAL",
        tool: i % 4 === 0 ? "mail.send" : "payments.refund",
        args: "{}",
        digest: "d",
        status: i % 10 === 9 ? "APPROVED" : "PENDING",
        requestedBy: `agent:${agent}`,
        packet: JSON.stringify({ impact: `packet ${i}`, evidence: [], options: [] }),
        queue: QUEUES[i % 3 === 0 ? 0 : i % 7 === 0 ? 2 : 1],
        assignee: i % 6 === 0 ? me : null,
        expiresAt: deadline === null ? null : new Date(NOW.getTime() + deadline),
        createdAt,
        changedAt: createdAt,
        capability: i % 8 === 0 ? "draft" : "execute",
        impactRank: IMPACT_RANK[level],
      };
    });
    for (const row of rows) await db.decisionPacket.create({ data: row });
    model = rows
      .filter((r) => r.status === "PENDING")
      .map((r) => ({
        id: r.id,
        runId,
        step: r.step,
        kind: "APPROVAL",
        tool: r.tool,
        impact: "",
        args: {},
        digest: "d",
        agent,
        capability: r.capability as InboxItem["capability"],
        semantics: null,
        impactLevel: LEVELS[r.impactRank - 1],
        queue: r.queue,
        assignee: r.assignee,
        requiredApprovals: 1,
        approvers: [],
        createdAt: r.createdAt.toISOString(),
        expiresAt: r.expiresAt?.toISOString() ?? null,
        onExpire: "reject",
      }));
  });
  afterAll(async () => {
    await db.run.deleteMany({ where: { agentSlug: agent } });
    await db.$disconnect();
  });

  async function walk(params: Record<string, string>, pageSize = 7) {
    const filters = parseInboxFilters({ ...params, agent });
    const ids: string[] = [];
    let cursor: string | undefined;
    let total = -1;
    for (let pages = 0; pages < 50; pages++) {
      const page = await findInboxPage(db, { workspaceId: null, filters, me, cursor, pageSize, now: NOW });
      ids.push(...page.items.map((item) => item.id));
      total = page.total;
      if (!page.nextCursor) return { ids, total };
      cursor = page.nextCursor;
    }
    throw new Error("the walk never ended");
  }

  it.each(SORTS)("walks every pending packet once, in the model's %s order", async (sort) => {
    const expected = sortInbox(model, sort, NOW).map((item) => item.id);
    const { ids, total } = await walk({ sort });
    expect(ids).toEqual(expected);
    expect(total).toBe(model.length);
  });

  it.each([
    [{ queue: "attention" }],
    [{ queue: "finance", sort: "expiry" }],
    [{ tool: "mail.send", sort: "impact" }],
    [{ capability: "draft" }],
    [{ assignee: "unassigned", sort: "age" }],
    [{ mine: "1" }],
  ])("filters in the database with a true total: %j", async (params) => {
    const filters = parseInboxFilters({ ...params, agent });
    const expected = sortInbox(filterInbox(model, filters, me), filters.sort, NOW).map((item) => item.id);
    expect(expected.length).toBeGreaterThan(0);
    const { ids, total } = await walk(params, 4);
    expect(ids).toEqual(expected);
    expect(total).toBe(expected.length);
  });

  it("keeps one order across pages while the clock moves (the cursor carries its now)", async () => {
    const filters = parseInboxFilters({ agent });
    const first = await findInboxPage(db, { workspaceId: null, filters, me, pageSize: 10, now: NOW });
    const second = await findInboxPage(db, {
      workspaceId: null,
      filters,
      me,
      pageSize: 10,
      cursor: first.nextCursor!,
      now: new Date(NOW.getTime() + 30 * HOUR),
    });
    const expected = sortInbox(model, "urgency", NOW).map((item) => item.id);
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual(expected.slice(0, 20));
  });

  it("treats a cursor that is not one of ours as the first page", async () => {
    const filters = parseInboxFilters({ agent });
    const first = await findInboxPage(db, { workspaceId: null, filters, me, pageSize: 5, now: NOW });
    for (const cursor of ["garbage", Buffer.from('{"now":"x"}').toString("base64url"), "x".repeat(2000)]) {
      expect(
        (await findInboxPage(db, { workspaceId: null, filters, me, pageSize: 5, cursor, now: NOW })).items,
      ).toEqual(first.items);
    }
  });

  it("offers the filter values present among pending packets and counts pending ones with the badge's numbers", async () => {
    const page = await findInboxPage(db, {
      workspaceId: null,
      filters: parseInboxFilters({ agent }),
      me,
      pageSize: 1,
      now: NOW,
    });
    expect(page.facets!.agents).toContain(agent);
    expect(page.facets!.queues).toEqual(expect.arrayContaining(QUEUES));
    expect(page.facets!.assignees).toContain(me);
    const badge = await countPendingPackets(me, { db });
    expect(badge.mine).toBe(model.filter((item) => item.assignee === me).length);
    expect(page.pending).toBe(badge.pending);
    // A later page of the same walk carries no menus (the first page's serve the whole walk).
    expect(
      (
        await findInboxPage(db, {
          workspaceId: null,
          filters: parseInboxFilters({ agent }),
          me,
          pageSize: 1,
          cursor: page.nextCursor!,
          now: NOW,
        })
      ).facets,
    ).toBeNull();
  });

  it("reports packets written since the cursor (and again within the overlap), nothing when nothing moved", async () => {
    const start = await findPacketChanges(db, undefined);
    expect(start.changes).toEqual([]);
    // Nothing of this test's written since (its packets were stamped long ago): nothing reported.
    const later = () => new Date(Date.now() + OVERLAP_MS + 1_000);
    const quiet = await findPacketChanges(db, start.cursor, later);
    expect(quiet.changes.filter((c) => c.id.includes(agent))).toEqual([]);

    const target = model[0].id;
    const written = await db.decisionPacket.update({
      where: { id: target },
      data: { status: "REJECTED", version: { increment: 1 }, changedAt: new Date() },
    });
    const news = await findPacketChanges(db, start.cursor);
    expect(news.changes).toContainEqual({ id: target, status: "REJECTED", version: written.version });
    // A commit that lands just after a poll read, stamped just before it, is still reported by the next poll.
    const again = await findPacketChanges(db, news.cursor);
    expect(again.changes.map((c) => c.id)).toContain(target);
    expect(await findPacketChanges(db, "not-a-cursor")).toMatchObject({ changes: [] });
  });
});
