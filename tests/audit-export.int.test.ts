import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { parseAuditPageParams } from "../lib/audit/filter";
import { AUDIT_PAGE_SIZE, findAuditPage } from "../lib/queries/audit";
import { getRuntime } from "../lib/runtime.server";
import { startRouteServer } from "./support/route-server";
import { providers, uid } from "./support/runtime";
import { createPersonWithToken } from "./support/tokens";

// GET /api/audit over real HTTP on both databases: the entries of a range and filter, oldest first, as
// JSON lines or CSV; keyset pages joined by X-Next-Cursor hold every entry once, even when entries are
// written while someone pages; before/after where Tether records them; admin tokens only; bad
// parameters are a 400 naming the field, and write nothing.

type Line = {
  id: string;
  at: string;
  actor: string;
  via: string | null;
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  data: Record<string, unknown>;
};

describe.each(providers())("audit export [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let admin: { token: string; email: string };
  let operator: string;
  const t0 = new Date("2026-03-01T10:00:00.000Z");
  const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);

  beforeAll(async () => {
    process.env.DATABASE_URL = url;
    db = createDb(url);
    server = await startRouteServer();
    admin = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
    operator = (await createPersonWithToken(db, { role: "operator", scopes: ["runs:read", "runs:write"] })).token;
  });
  afterAll(async () => {
    await server.close();
    await db.$disconnect();
  });

  const get = (query: Record<string, string | number>, token: string | null = admin.token) =>
    fetch(`${server.url}/api/audit?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const lines = async (response: Response): Promise<Line[]> =>
    (await response.text())
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  /** Audit rows of a person of this test only (the database is shared with other test files). */
  const seed = async (
    actor: string,
    rows: Array<{ minutes: number; action?: string; target?: string | null; data?: unknown; id?: string }>,
  ) => {
    for (const row of rows) {
      await db.auditLog.create({
        data: {
          id: row.id ?? `aud_${randomUUID().replaceAll("-", "")}`,
          actor,
          action: row.action ?? "runs.cancel",
          target: row.target ?? null,
          data: JSON.stringify(row.data ?? {}),
          at: at(row.minutes),
        },
      });
    }
  };
  const exportsBy = (email: string) => db.auditLog.count({ where: { actor: email, action: "audit.export" } });

  it("exports a range as JSON lines, oldest first: since inclusive, until exclusive, filtered by actor, action prefix and object", async () => {
    const actor = `${uid("actor")}@example.com`;
    await seed(actor, [
      { minutes: 0, action: "runs.cancel", target: "run_a", data: { reason: "r", via: "token:ci" } },
      { minutes: 5, action: "packets.decide", target: "pkt_a", data: { decision: "approve", via: "a2a:bot" } },
      {
        minutes: 10,
        action: "users.role",
        target: "x@example.com",
        data: { email: "x@example.com", before: { role: "reviewer" }, after: { role: "operator" } },
      },
      { minutes: 15, action: "runs.retry", target: "run_b" },
    ]);
    const response = await get({ actor, since: at(0).toISOString(), until: at(15).toISOString() });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/application\/x-ndjson/);
    expect(response.headers.get("x-next-cursor")).toBeNull();
    const got = await lines(response);
    expect(got.map((l) => [l.action, l.at])).toEqual([
      ["runs.cancel", at(0).toISOString()],
      ["packets.decide", at(5).toISOString()],
      ["users.role", at(10).toISOString()],
    ]);
    expect(got[0]).toMatchObject({
      actor,
      via: "token:ci",
      target: "run_a",
      before: null,
      after: null,
      data: { reason: "r", via: "token:ci" },
    });
    expect(got[1].via).toBe("a2a:bot");
    expect(got[2]).toMatchObject({ via: null, before: { role: "reviewer" }, after: { role: "operator" } });

    expect((await lines(await get({ actor, action: "runs." }))).map((l) => l.target)).toEqual(["run_a", "run_b"]);
    expect((await lines(await get({ actor, target: "pkt_a" }))).map((l) => l.action)).toEqual(["packets.decide"]);
    expect(await lines(await get({ actor, since: "2026-03-01", until: "2026-03-02" }))).toHaveLength(4);
    expect(await lines(await get({ actor, since: "2026-03-02" }))).toEqual([]);
  });

  it("a permission change carries its before/after from the permission's versioned history", async () => {
    const actor = `${uid("admin")}@example.com`;
    const runtime = getRuntime();
    const agent = uid("agent");
    const first = await runtime.permissions.put({ agent, tool: "payments.refund", effect: "allow" }, { by: actor });
    const second = await runtime.permissions.put(
      { agent, tool: "payments.refund", effect: "require_approval" },
      { by: actor },
    );
    await seed(actor, [
      {
        minutes: 1,
        action: "permissions.put",
        target: first.id,
        data: { agent, effect: "allow", version: first.version },
      },
      {
        minutes: 2,
        action: "permissions.put",
        target: second.id,
        data: { agent, effect: "require_approval", version: second.version },
      },
    ]);
    const [created, changed] = await lines(await get({ actor }));
    expect(created).toMatchObject({ before: null, after: { effect: "allow" } });
    expect(changed).toMatchObject({ before: { effect: "allow" }, after: { effect: "require_approval" } });
  });

  it("exports CSV through lib/csv: a header, JSON cells, and a formula in a value neutralised", async () => {
    const actor = `${uid("csv")}@example.com`;
    await seed(actor, [
      {
        minutes: 0,
        action: "packets.decide",
        target: '=HYPERLINK("http://evil")',
        data: { decision: "reject", reason: "-2+3", via: "token:ci" },
      },
    ]);
    const response = await get({ actor, format: "csv" });
    expect(response.headers.get("content-type")).toMatch(/text\/csv/);
    expect(response.headers.get("content-disposition")).toContain("audit-log.csv");
    const [header, row, end] = (await response.text()).split("\r\n");
    expect(header).toBe("id,at,actor,via,action,target,before,after,data");
    expect(row).toContain(`,${actor},token:ci,packets.decide,"'=HYPERLINK(""http://evil"")",,,`);
    expect(row).toContain('"{""decision"":""reject"",""reason"":""-2+3"",""via"":""token:ci""}"');
    expect(end).toBe("");
  });

  it("pages by X-Next-Cursor without gaps or duplicates, also across entries at the same instant and one written while paging", async () => {
    const actor = `${uid("pages")}@example.com`;
    // 23 entries, several sharing a millisecond (the id breaks the tie).
    await seed(
      actor,
      Array.from({ length: 23 }, (_, i) => ({
        minutes: Math.floor(i / 3),
        target: `run_${String(i).padStart(2, "0")}`,
      })),
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response: Response = await get({ actor, limit: 5, ...(cursor ? { cursor } : {}) });
      expect(response.status).toBe(200);
      const page = await lines(response);
      seen.push(...page.map((l) => l.id));
      cursor = response.headers.get("x-next-cursor");
      if (cursor) {
        expect(page).toHaveLength(5);
        expect(response.headers.get("link")).toContain(`cursor=${encodeURIComponent(cursor)}`);
      }
      if (++pages === 2) await seed(actor, [{ minutes: 60, target: "run_late" }]); // written while paging
    } while (cursor);
    const expected = (
      await db.auditLog.findMany({ where: { actor }, orderBy: [{ at: "asc" }, { id: "asc" }], select: { id: true } })
    ).map((r) => r.id);
    expect(expected).toHaveLength(24);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(5);
  });

  it("streams a large range in batches: every entry, once", async () => {
    const actor = `${uid("bulk")}@example.com`;
    const base = at(1000).getTime();
    await db.auditLog.createMany({
      data: Array.from({ length: 1_234 }, (_, i) => ({
        id: `aud_${randomUUID().replaceAll("-", "")}`,
        actor,
        action: "runs.cancel",
        target: `run_${i}`,
        data: "{}",
        at: new Date(base + i),
      })),
    });
    const got = await lines(await get({ actor }));
    expect(got).toHaveLength(1_234);
    expect(new Set(got.map((l) => l.id)).size).toBe(1_234);
    expect(got.map((l) => l.target)).toEqual(Array.from({ length: 1_234 }, (_, i) => `run_${i}`));
  });

  it("the admin page's query: newest first, a page at a time, the older cursor continuing without overlap; a bad filter field is off and named", async () => {
    const actor = `${uid("page")}@example.com`;
    await seed(
      actor,
      Array.from({ length: AUDIT_PAGE_SIZE + 7 }, (_, i) => ({
        minutes: i,
        action: i % 2 ? "runs.cancel" : "users.role",
        target: `obj_${i}`,
      })),
    );
    const { filter, ignored } = parseAuditPageParams({ actor, since: "not a day" });
    expect(ignored).toEqual(["since"]);
    const first = await findAuditPage(db, filter, undefined);
    expect(first.entries).toHaveLength(AUDIT_PAGE_SIZE);
    expect(first.entries[0].target).toBe(`obj_${AUDIT_PAGE_SIZE + 6}`);
    const next = parseAuditPageParams({ actor, cursor: first.olderCursor! });
    const second = await findAuditPage(db, next.filter, next.cursor);
    expect(second).toMatchObject({ olderCursor: null });
    expect([...first.entries, ...second.entries].map((e) => e.target)).toEqual(
      Array.from({ length: AUDIT_PAGE_SIZE + 7 }, (_, i) => `obj_${AUDIT_PAGE_SIZE + 6 - i}`),
    );
    const cancels = await findAuditPage(
      db,
      parseAuditPageParams({ actor, action: "runs.", target: "obj_3" }).filter,
      undefined,
    );
    expect(cancels.entries.map((e) => [e.action, e.target])).toEqual([["runs.cancel", "obj_3"]]);
  });

  it("is for admin tokens only, refuses bad parameters with a 400 naming the field, and audits each export", async () => {
    const before = await exportsBy(admin.email);
    expect((await get({}, operator)).status).toBe(403);
    expect((await get({}, null)).status).toBe(401);
    const bad: Array<[Record<string, string | number>, string]> = [
      [{ format: "xml" }, "format"],
      [{ since: "yesterday" }, "since"],
      [{ until: "2026-13-45" }, "until"],
      [{ since: "2026-03-02", until: "2026-03-01" }, "until"],
      [{ limit: 0 }, "limit"],
      [{ limit: 50_001 }, "limit"],
      [{ cursor: "not-a-cursor" }, "cursor"],
    ];
    for (const [query, field] of bad) {
      const response = await get(query);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      const body = await response.json();
      expect(body.error).toMatchObject({ code: "INVALID_INPUT", fieldErrors: { [field]: expect.any(Array) } });
    }
    expect(await exportsBy(admin.email)).toBe(before);

    await (await get({ actor: "nobody@example.com", format: "csv" })).text();
    const audit = await db.auditLog.findFirstOrThrow({
      where: { actor: admin.email, action: "audit.export" },
      orderBy: { at: "desc" },
    });
    expect(JSON.parse(audit.data)).toMatchObject({
      actor: "nobody@example.com",
      format: "csv",
      via: expect.stringMatching(/^token:/),
    });
  });
});
