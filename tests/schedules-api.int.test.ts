import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { providers, uid } from "./support/runtime";
import { startRouteServer } from "./support/route-server";
import { createPersonWithToken } from "./support/tokens";

// /api/schedules over real HTTP: schedules:write creates, changes, pauses and deletes (each audited as
// the token's person); schedules:read lists with next ticks and shows the fire history; a reviewer's
// token reads but does not write; a bad body names its field. `tether schedule …` drives the same API.

const exec = promisify(execFile);

describe.each(providers())("/api/schedules [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    db = createDb(url);
    server = await startRouteServer();
  });
  afterAll(async () => {
    await server.close();
    await db.$disconnect();
  });

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };

  it("create, list, show, pause, resume, change and delete; each change audited as the token's person", async () => {
    const operator = await createPersonWithToken(db, {
      role: "operator",
      scopes: ["schedules:write", "schedules:read"],
    });
    const name = uid("nightly");
    const created = await call("POST", "/api/schedules", operator.token, {
      name,
      agent: "refund-agent",
      input: { orderId: "ord_1" },
      cron: "0 2 * * *",
      timeZone: "America/New_York",
      overlap: "queue",
    });
    expect(created).toMatchObject({
      status: 201,
      json: {
        name,
        agent: "refund-agent",
        cron: "0 2 * * *",
        timeZone: "America/New_York",
        overlap: "queue",
        paused: false,
        catchUpSeconds: 0,
        createdBy: operator.email,
      },
    });
    const id = created.json.id as string;
    expect(created.json.upcoming).toHaveLength(3);
    // 02:00 in New York is 06:00 or 07:00 UTC depending on the season.
    expect(created.json.upcoming.every((t: string) => /T0[67]:00:00\.000Z$/.test(t))).toBe(true);

    const listed = await call("GET", "/api/schedules", operator.token);
    expect(listed.status).toBe(200);
    expect(listed.json.schedules.find((s: { id: string }) => s.id === id)).toMatchObject({
      name,
      nextFireAt: created.json.upcoming[0],
      lastFire: null,
    });

    expect(await call("PATCH", `/api/schedules/${id}`, operator.token, { paused: true })).toMatchObject({
      status: 200,
      json: { paused: true, nextFireAt: null, upcoming: [] },
    });
    expect(await call("PATCH", `/api/schedules/${id}`, operator.token, { paused: false })).toMatchObject({
      status: 200,
      json: { paused: false, nextFireAt: created.json.upcoming[0] },
    });
    expect(await call("PATCH", `/api/schedules/${id}`, operator.token, { cron: "*/30 * * * *" })).toMatchObject({
      status: 200,
      json: { cron: "*/30 * * * *" },
    });
    expect(await call("GET", `/api/schedules/${id}`, operator.token)).toMatchObject({
      status: 200,
      json: { id, fires: [] },
    });
    expect(await call("DELETE", `/api/schedules/${id}`, operator.token)).toMatchObject({
      status: 200,
      json: { deleted: id },
    });
    expect((await call("GET", `/api/schedules/${id}`, operator.token)).status).toBe(404);

    const audit = await db.auditLog.findMany({
      where: { target: id },
      orderBy: { at: "asc" },
      select: { actor: true, action: true },
    });
    expect(audit.map((a) => a.action)).toEqual([
      "schedules.create",
      "schedules.pause",
      "schedules.resume",
      "schedules.update",
      "schedules.delete",
    ]);
    expect(new Set(audit.map((a) => a.actor))).toEqual(new Set([operator.email]));
  });

  it("a reviewer's token reads schedules but cannot write them; a bad body names its field; a name is taken once", async () => {
    const reviewer = await createPersonWithToken(db, { role: "reviewer", scopes: ["schedules:read", "runs:read"] });
    const operator = await createPersonWithToken(db, { role: "operator", scopes: ["schedules:write"] });
    expect((await call("GET", "/api/schedules", reviewer.token)).status).toBe(200);
    expect(
      (
        await call("POST", "/api/schedules", reviewer.token, {
          name: uid("x"),
          agent: "refund-agent",
          input: { orderId: "o" },
          cron: "* * * * *",
        })
      ).status,
    ).toBe(403);
    expect((await call("GET", "/api/schedules", operator.token)).status).toBe(403); // write does not imply read

    const bad = await call("POST", "/api/schedules", operator.token, {
      name: uid("x"),
      agent: "refund-agent",
      input: { orderId: "o" },
      cron: "* * 32 * *",
    });
    expect(bad).toMatchObject({
      status: 400,
      json: { error: { code: "INVALID_INPUT", fieldErrors: { cron: [expect.stringMatching(/day of month/)] } } },
    });
    const name = uid("once");
    expect(
      (
        await call("POST", "/api/schedules", operator.token, {
          name,
          agent: "refund-agent",
          input: { orderId: "o" },
          cron: "* * * * *",
        })
      ).status,
    ).toBe(201);
    expect(
      await call("POST", "/api/schedules", operator.token, {
        name,
        agent: "refund-agent",
        input: { orderId: "o" },
        cron: "* * * * *",
      }),
    ).toMatchObject({ status: 409, json: { error: { fieldErrors: { name: ["Taken."] } } } });
  });

  it("tether schedule create, list, show, pause, resume and delete, naming a schedule by its name", async () => {
    const operator = await createPersonWithToken(db, {
      role: "operator",
      scopes: ["schedules:write", "schedules:read"],
    });
    const env = { ...process.env, TETHER_URL: server.url, TETHER_TOKEN: operator.token };
    const cli = (...args: string[]) => exec(process.execPath, ["bin/tether.mjs", "schedule", ...args], { env });
    const name = uid("cli");
    const created = await cli(
      "create",
      "--name",
      name,
      "--agent",
      "refund-agent",
      "--cron",
      "15 8 * * mon",
      "--tz",
      "Asia/Tokyo",
      "--input-json",
      JSON.stringify({ orderId: "ord_9" }),
      "--overlap",
      "cancel",
      "--catch-up",
      "600",
    );
    expect(created.stdout).toMatch(new RegExp(`^created sch_\\w+ ${name}`));
    const row = await db.schedule.findFirstOrThrow({ where: { name } });
    expect(row).toMatchObject({
      agent: "refund-agent",
      cron: "15 8 * * mon",
      timeZone: "Asia/Tokyo",
      overlap: "cancel",
      catchUpSeconds: 600,
      input: JSON.stringify({ orderId: "ord_9" }),
      createdBy: operator.email,
    });
    expect((await cli("list")).stdout).toContain(name);
    // Monday 08:15 in Tokyo is Sunday 23:15 UTC.
    expect((await cli("show", name)).stdout).toMatch(/next {3}\d{4}-\d\d-\d\d 23:15:00 UTC/);
    expect((await cli("pause", name)).stdout).toBe(`paused ${name}\n`);
    expect((await db.schedule.findFirstOrThrow({ where: { name } })).paused).toBe(true);
    expect((await cli("resume", row.id)).stdout).toMatch(new RegExp(`^resumed ${name}, next .* 23:15:00 UTC`));
    expect((await cli("delete", name)).stdout).toBe(`deleted ${row.id}\n`);
    expect(await db.schedule.count({ where: { name } })).toBe(0);
    const refused = await cli("create", "--name", uid("bad"), "--agent", "refund-agent", "--cron", "* * *").then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toMatch(/400 INVALID_INPUT[\s\S]*has 3 fields/);
  });
});
