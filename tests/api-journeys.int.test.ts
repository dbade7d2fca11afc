import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoAgents } from "../lib/agents";
import { createDb, type Db } from "../lib/db";
import { getRuntime } from "../lib/runtime.server";
import { seedSandbox } from "../lib/sandbox/seed";
import { createSandboxOrder } from "./support/sandbox-world";
import { providers, uid } from "./support/runtime";
import { createPersonWithToken } from "./support/tokens";
import { startRouteServer } from "./support/route-server";
import { until } from "./support/until";

// Each demo agent end to end through the HTTP API, as a client outside this repo drives it: start with
// POST /api/runs, decide its packets, deliver its callbacks; the sandbox ledger proves no effect
// happened twice. The app's own composition root runs it (tools reach /api/sandbox over real HTTP).

const run = promisify(execFile);

describe.each(providers())("agents through the HTTP API [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let operator: string; // starts runs
  let reviewer: string; // decides packets (a requester cannot approve its own action)
  let admin: string; // the sandbox world's control routes (reads of the ledger, completing a deploy)

  beforeAll(async () => {
    process.env.DATABASE_URL = url;
    db = createDb(url);
    server = await startRouteServer();
    process.env.TETHER_SANDBOX_URL = `${server.url}/api/sandbox`;
    process.env.TETHER_SANDBOX = "1"; // served on Postgres too (off by default outside demo mode)
    await seedSandbox(db);
    const runtime = getRuntime();
    for (const agent of demoAgents)
      for (const p of agent.defaultPermissions) await runtime.permissions.put(p, { by: "test" });
    operator = (
      await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read", "signals:write"] })
    ).token;
    reviewer = (await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide", "runs:read"] })).token;
    admin = (await createPersonWithToken(db, { role: "admin", scopes: ["admin"] })).token;
  });
  afterAll(async () => {
    delete process.env.TETHER_SANDBOX;
    await server.close();
    await db.$disconnect();
  });

  const call = async (method: string, path: string, token: string | null, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  const work = () => getRuntime().createWorker().drain();
  const status = async (id: string) => (await call("GET", `/api/runs/${id}`, operator)).json.run.status;
  const ledger = async (runId: string) =>
    (await call("GET", `/api/sandbox/ledger?runId=${runId}`, admin)).json.entries as Array<{
      system: string;
      action: string;
      data: { deployId?: string };
    }>;
  const approveOnly = async (runId: string) => {
    const { json } = await call("GET", `/api/packets?status=pending&runId=${runId}`, operator);
    expect(json.packets).toHaveLength(1);
    const decided = await call("POST", `/api/packets/${json.packets[0].id}/decision`, reviewer, {
      decision: "approve",
    });
    expect(decided).toMatchObject({ status: 200, json: { packet: { status: "APPROVED" } } });
    return json.packets[0];
  };

  it("GET /api/agents lists every agent with an input schema and a working example", async () => {
    const { status: code, json } = await call("GET", "/api/agents", operator);
    expect(code).toBe(200);
    expect(json.agents.map((a: { slug: string }) => a.slug).sort()).toEqual([
      "deploy-agent",
      "outreach-agent",
      "refund-agent",
    ]);
    for (const agent of json.agents)
      expect(agent).toMatchObject({
        name: expect.any(String),
        description: expect.any(String),
        inputSchema: expect.objectContaining({ type: "object" }),
        exampleInput: expect.anything(),
      });
  });

  it("refund-agent: POST /api/runs → approval → completed; the same idempotencyKey returns the same run", async () => {
    const order = await createSandboxOrder(db, { amountCents: 24_000 });
    const key = uid("key");
    const started = await call("POST", "/api/runs", operator, {
      agent: "refund-agent",
      input: { orderId: order.id },
      idempotencyKey: key,
    });
    expect(started).toMatchObject({ status: 201, json: { id: expect.any(String), status: "QUEUED" } });
    expect(
      await call("POST", "/api/runs", operator, {
        agent: "refund-agent",
        input: { orderId: order.id },
        idempotencyKey: key,
      }),
    ).toMatchObject({ status: 200, json: { id: started.json.id } });
    await work();
    expect(await status(started.json.id)).toBe("WAITING_APPROVAL");
    const packet = await approveOnly(started.json.id);
    expect(packet.content.impact).toMatch(/refunds \$240\.00 to card/);
    expect(
      (await call("POST", `/api/packets/${packet.id}/decision`, reviewer, { decision: "reject", reason: "late" }))
        .status,
    ).toBe(409);
    await work();
    expect(await status(started.json.id)).toBe("COMPLETED");
    const effects = await ledger(started.json.id);
    expect(effects.filter((e) => e.system === "payments")).toHaveLength(1);
    expect(effects.filter((e) => e.system === "mail")).toHaveLength(1);
    const { json: events } = await call("GET", `/api/runs/${started.json.id}/events?after=3`, operator);
    expect(events.events[0].seq).toBe(4);
  });

  it("deploy-agent: approval, the unsafe migration once, the callback delivered twice and once more as a duplicate signal", async () => {
    const started = await call("POST", "/api/runs", operator, {
      agent: "deploy-agent",
      input: { migration: `00${Date.now() % 100}_${uid("m").replace("-", "_")}` },
    });
    await work();
    await approveOnly(started.json.id);
    await work();
    expect(await status(started.json.id)).toBe("WAITING_EVENT");
    const [deploy] = (await ledger(started.json.id)).filter((e) => e.system === "deploys");
    const deployId = deploy.data.deployId!;
    expect(
      (await call("POST", `/api/sandbox/deploys/${deployId}/complete`, null, { outcome: "succeeded", deliveries: 2 }))
        .status,
    ).toBe(401);
    expect(
      (await call("POST", `/api/sandbox/deploys/${deployId}/complete`, admin, { outcome: "succeeded", deliveries: 2 }))
        .status,
    ).toBe(200);
    expect(
      await call("POST", `/api/runs/${started.json.id}/signals`, operator, {
        type: "deploy.finished",
        dedupKey: deployId,
        payload: { deployId, outcome: "succeeded" },
      }),
    ).toMatchObject({ status: 200, json: { duplicate: true } });
    await work();
    expect(await status(started.json.id)).toBe("COMPLETED");
    expect((await ledger(started.json.id)).filter((e) => e.system === "deploys")).toHaveLength(1);
  });

  it("outreach-agent: research, a draft, a durable timer, then sending needs approval", async () => {
    const started = await call("POST", "/api/runs", operator, {
      agent: "outreach-agent",
      input: { to: "ada@example.com", query: "scheduled exports", waitMs: 1_000 },
    });
    await work();
    expect(await status(started.json.id)).toBe("SLEEPING");
    // The timer is durable and real: work on until it has fired.
    await until(
      async () => {
        await work();
        return status(started.json.id);
      },
      { what: "the timer fires and the run asks for approval", holds: (s) => s === "WAITING_APPROVAL" },
    );
    await approveOnly(started.json.id);
    await work();
    expect(await status(started.json.id)).toBe("COMPLETED");
    const effects = await ledger(started.json.id);
    expect(effects.filter((e) => e.system === "mail")).toHaveLength(1);
    expect(effects.filter((e) => e.system === "drafts")).toHaveLength(1);
  });

  it("cancel and resume through the API", async () => {
    const started = await call("POST", "/api/runs", operator, {
      agent: "deploy-agent",
      input: { migration: "0099_cancel_me" },
    });
    expect((await call("POST", `/api/runs/${started.json.id}/resume`, operator)).status).toBe(409);
    expect(
      await call("POST", `/api/runs/${started.json.id}/cancel`, operator, { reason: "wrong target" }),
    ).toMatchObject({ status: 200, json: { run: { status: "CANCELLED" } } });
    expect((await call("POST", `/api/runs/${started.json.id}/cancel`, operator, {})).status).toBe(409);
  });

  it("the CLI drives the same API: run, runs, show, packets, approve", async () => {
    const env = { ...process.env, TETHER_URL: server.url, TETHER_TOKEN: operator };
    const cli = (...args: string[]) => run(process.execPath, ["bin/tether.mjs", ...args], { env });
    const order = await createSandboxOrder(db, { amountCents: 15_000 });
    const { stdout: started } = await cli("run", "refund-agent", "--input-json", JSON.stringify({ orderId: order.id }));
    const runId = /started (\S+)/.exec(started)![1];
    await work();
    expect((await cli("runs", "--status", "WAITING_APPROVAL")).stdout).toContain(runId);
    const { stdout: packets } = await cli("packets");
    const packetId = packets
      .split("\n")
      .find((l) => l.includes(runId))!
      .split(/\s+/)[0];
    const approve = await run(process.execPath, ["bin/tether.mjs", "approve", packetId], {
      env: { ...env, TETHER_TOKEN: reviewer },
    });
    expect(approve.stdout).toContain("approved");
    await work();
    const { stdout: shown } = await cli("show", runId);
    expect(shown).toContain("COMPLETED");
    expect(shown).toMatch(/tool\.call\s+payments\.refund/);
    await expect(cli("show", "run_nope")).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("404") });
  });
});
