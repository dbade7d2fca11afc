import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refundAgent } from "../lib/agents";
import { createDb, type Db } from "../lib/db";
import { getRuntime } from "../lib/runtime.server";
import { seedSandbox } from "../lib/sandbox/seed";
import { shutdownTraceExport } from "../lib/telemetry";
import { untilLeasesLapse } from "./support/leases";
import { providers } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";
import { kill } from "./support/spawn-worker";
import { startRouteServer } from "./support/route-server";
import { createPersonWithToken } from "./support/tokens";
import { until } from "./support/until";

// One run, one trace, across processes: a run started over HTTP with a traceparent is driven by a
// worker process up to a person's approval, decided through the API (this process), resumed by the
// same worker, which is killed with SIGKILL after the refund's intent is committed; a second worker
// process takes it over and finishes. An in-process OTLP/HTTP receiver collects what all three
// processes export: one trace under the caller's span, run → steps → model / tool / human-wait
// spans, each span once, and no trace of the secret planted in the tool's arguments and results.

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
};
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: Array<{ key: string; value: OtlpValue }>;
  events?: Array<{ name: string }>;
};
type Span = OtlpSpan & { attrs: Record<string, unknown> };

const LEASE_MS = 1_200;

function valueOf(v: OtlpValue): unknown {
  if (v.arrayValue) return v.arrayValue.values.map(valueOf);
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue;
}

/** An OTLP/HTTP receiver (JSON encoding, as Tether's exporter sends it), loopback only. */
async function startReceiver() {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const spans = (): Span[] =>
    bodies.flatMap((body) =>
      (JSON.parse(body).resourceSpans ?? []).flatMap((rs: { scopeSpans?: Array<{ spans?: OtlpSpan[] }> }) =>
        (rs.scopeSpans ?? []).flatMap((ss) =>
          (ss.spans ?? []).map((s) => ({
            ...s,
            attrs: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
          })),
        ),
      ),
    );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spans,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function spawnOtelWorker(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "tests/otel-worker.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const waitFor = async (text: string, ms = 60_000) => {
    let line: string | undefined;
    await until(
      `the worker printed "${text}"\nstdout: ${out}\nstderr: ${err}`,
      () => {
        if (child.exitCode !== null && !out.includes(text))
          throw new Error(`the worker exited (${child.exitCode}) before "${text}"\nstdout: ${out}\nstderr: ${err}`);
        line = out.split("\n").find((l) => l.includes(text));
        return line !== undefined;
      },
      ms,
    );
    return line!;
  };
  return { child, waitFor };
}

describe.each(providers())("OpenTelemetry export across a crash and a person [%s]", (_provider, url) => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let operator: string;
  let reviewer: string;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url; // read when this process's runtime is built
    process.env.OTEL_BSP_SCHEDULE_DELAY = "20";
    process.env.DATABASE_URL = url;
    db = createDb(url);
    server = await startRouteServer();
    process.env.TETHER_SANDBOX_URL = `${server.url}/api/sandbox`;
    process.env.TETHER_SANDBOX = "1";
    await seedSandbox(db);
    for (const p of refundAgent.defaultPermissions) await getRuntime().permissions.put(p, { by: "test" });
    operator = (await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read"] })).token;
    reviewer = (await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide", "runs:read"] })).token;
  });
  afterAll(async () => {
    for (const child of workers) await kill(child);
    await shutdownTraceExport();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.TETHER_SANDBOX;
    await server.close();
    await receiver.close();
    await db.$disconnect();
  });

  const call = async (
    method: string,
    path: string,
    token: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  const statusOf = async (runId: string) =>
    (await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } })).status;
  const workerEnv = () => ({
    DATABASE_URL: url,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: "20",
    TETHER_SANDBOX_URL: `${server.url}/api/sandbox`,
    TETHER_SANDBOX: "1",
    TETHER_LEASE_MS: String(LEASE_MS),
  });

  it("exports one trace under the caller's span: run → steps → model, tool and human-wait spans, each once, with no secret", async () => {
    const secret = `sk_live_${randomBytes(12).toString("hex")}`;
    const order = await createSandboxOrder(db, { amountCents: 24_000 });
    await db.sandboxOrder.update({ where: { id: order.id }, data: { customerName: `Ada ${secret}` } }); // in orders.get's result and mail.send's body
    const caller = { traceId: randomBytes(16).toString("hex"), spanId: randomBytes(8).toString("hex") };

    // Worker A drives the run until the refund's intent is committed after the approval, then hangs there.
    const a = spawnOtelWorker({
      ...workerEnv(),
      TETHER_FAULT_AT: "after-intent",
      TETHER_FAULT_TOOL: "payments.refund",
    });
    workers.push(a.child);
    await a.waitFor("READY");
    const started = await call(
      "POST",
      "/api/runs",
      operator,
      { agent: "refund-agent", input: { orderId: order.id, reason: `card ${secret}` } },
      { traceparent: `00-${caller.traceId}-${caller.spanId}-01` },
    );
    expect(started.status).toBe(201);
    const runId: string = started.json.id;
    const ours = () => receiver.spans().filter((s) => s.traceId === caller.traceId);

    await until("the run waits for a person", async () => (await statusOf(runId)) === "WAITING_APPROVAL", 60_000);
    // The spans of the steps before the gate left worker A before it is killed (a kill loses only what was not sent yet).
    await until(
      "worker A sent the first steps",
      () => ours().filter((s) => s.attrs["tether.span"] === "step").length >= 3,
      30_000,
    );
    const [packet] = (await call("GET", `/api/packets?status=pending&runId=${runId}`, operator)).json.packets;
    expect((await call("POST", `/api/packets/${packet.id}/decision`, reviewer, { decision: "approve" })).status).toBe(
      200,
    );

    await a.waitFor(`FAULT after-intent payments.refund ${runId}`);
    await kill(a.child);
    await untilLeasesLapse(db, [runId]); // the dead worker's lease expires…

    const b = spawnOtelWorker(workerEnv()); // …and another process takes the run over
    workers.push(b.child);
    await until("the run completed", async () => (await statusOf(runId)) === "COMPLETED", 60_000);
    b.child.kill("SIGTERM");
    await b.waitFor("STOPPED");
    await shutdownTraceExport();

    const spans = ours();
    // Each span once: the process that wrote a span's last event sent it, nobody else.
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const kind = (k: string) => spans.filter((s) => s.attrs["tether.span"] === k);

    const [root, ...extraRoots] = kind("run");
    expect(extraRoots).toEqual([]);
    expect(root).toMatchObject({ name: "invoke_agent refund-agent", parentSpanId: caller.spanId });
    expect(root.attrs).toMatchObject({
      "tether.run.id": runId,
      "tether.run.status": "COMPLETED",
      "gen_ai.operation.name": "invoke_agent",
    });

    const steps = kind("step").sort((x, y) => Number(x.attrs["tether.step"]) - Number(y.attrs["tether.step"]));
    // read the order, read the history, assess, refund (the gate, the crash, the takeover), email, record, complete
    expect(steps.map((s) => s.attrs["tether.step"])).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const step of steps) expect(step.parentSpanId).toBe(root.spanId);
    for (const child of [...kind("model"), ...kind("tool"), ...kind("human_wait")])
      expect(steps.map((s) => s.spanId)).toContain(child.parentSpanId);
    expect(spans.every((s) => s === root || byId.has(s.parentSpanId!))).toBe(true);

    expect(kind("model")).toHaveLength(steps.length); // one decision per step
    const tools = kind("tool");
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "execute_tool orders.get",
        "execute_tool orders.history",
        "execute_tool payments.refund",
        "execute_tool mail.send",
      ]),
    );
    const refund = tools.find((t) => t.name === "execute_tool payments.refund")!;
    const step3 = steps[3];
    expect(refund.parentSpanId).toBe(step3.spanId);
    // The call after the takeover: the second attempt of the committed intent, under its key.
    expect(refund.attrs).toMatchObject({
      "gen_ai.tool.name": "payments.refund",
      "tether.tool.attempt": 2,
      "tether.tool.idempotency_key": expect.any(String),
      "tether.tool.semantics": "idempotent",
    });
    expect(refund.attrs["gen_ai.tool.call.arguments"]).toBe(
      JSON.stringify({ orderId: "string", amountCents: "number", cardLast4: "string", currency: "string" }),
    );

    const [wait, ...extraWaits] = kind("human_wait");
    expect(extraWaits).toEqual([]);
    const decided = await db.decisionPacket.findUniqueOrThrow({
      where: { id: packet.id },
      select: { decidedBy: true },
    });
    expect(wait).toMatchObject({ name: "await_decision payments.refund", parentSpanId: step3.spanId });
    expect(wait.attrs).toMatchObject({
      "tether.gate.packet_id": packet.id,
      "tether.gate.decision": "approve",
      "tether.gate.reviewer": decided.decidedBy,
      "tether.gate.queue": "refunds",
    });
    expect(BigInt(wait.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(refund.startTimeUnixNano) + 1_000_000n);

    // Not in any attribute, event or name of anything sent (the planted value was in the input, a tool's result and a tool's arguments).
    expect(receiver.bodies.join("\n")).not.toContain(secret);
    expect(receiver.bodies.join("\n")).not.toContain(secret.slice(8));
  }, 300_000); // generous: on a loaded 2-core CI machine a worker process takes 15 s or more to start
});
