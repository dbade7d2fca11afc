import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as startRunRoute } from "../app/api/runs/route";
import { DEFAULT_MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../lib/api/body";
import { createDb, type Db } from "../lib/db";
import { providers, uid } from "./support/runtime";
import { startRouteServer } from "./support/route-server";
import { createPersonWithToken } from "./support/tokens";

// Request bodies at the trust boundary (docs/security.md): over TETHER_MAX_BODY_BYTES (default 1 MiB) → 413
// before the body is read (Content-Length) or as soon as the stream passes the limit; nested deeper
// than 64 levels → 400, never a 500. In both cases nothing is created. The HTTP API (defineRoute) and
// the sandbox (parseBody) read bodies through the same lib/api/body.ts.

describe.each(providers())("request body limits [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let token: string;

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    db = createDb(url);
    token = (await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read"] })).token;
    server = await startRouteServer();
  });
  afterEach(() => {
    delete process.env.TETHER_MAX_BODY_BYTES;
    delete process.env.TETHER_SANDBOX;
  });
  afterAll(async () => {
    await server.close();
    await db.$disconnect();
  });

  const send = async (method: string, path: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
      body,
    });
    return { status: res.status, json: await res.json() };
  };
  // JSON may carry any amount of whitespace: the same valid request, only bigger.
  const startRunBody = (key: string, padding: number) =>
    JSON.stringify({ agent: "refund-agent", input: { orderId: "ord_1001" }, idempotencyKey: key }) +
    " ".repeat(padding);
  const runsWithKey = (key: string) => db.run.count({ where: { idempotencyKey: key } });
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

  it("a body over 1 MiB gets 413 and starts no run; the same request within the limit starts it", async () => {
    const key = uid("big");
    const tooBig = await send("POST", "/api/runs", startRunBody(key, DEFAULT_MAX_BODY_BYTES));
    expect(tooBig).toEqual({
      status: 413,
      json: {
        error: {
          code: "PAYLOAD_TOO_LARGE",
          message: `The request body is larger than the limit of ${DEFAULT_MAX_BODY_BYTES} bytes.`,
        },
      },
    });
    expect(await runsWithKey(key)).toBe(0);

    const started = await send("POST", "/api/runs", startRunBody(key, 1000));
    expect(started).toMatchObject({ status: 201, json: { id: expect.any(String) } });
    expect(await runsWithKey(key)).toBe(1);
    // leave nothing runnable behind for the other test files' workers
    expect((await send("POST", `/api/runs/${started.json.id}/cancel`, "{}")).status).toBe(200);
  });

  it("TETHER_MAX_BODY_BYTES sets the limit", async () => {
    process.env.TETHER_MAX_BODY_BYTES = "2048";
    const key = uid("env");
    expect(await send("POST", "/api/runs", startRunBody(key, 3000))).toMatchObject({
      status: 413,
      json: { error: { code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("2048 bytes") } },
    });
    expect(await runsWithKey(key)).toBe(0);
    // within it: read and handled (an unknown agent, so nothing is started)
    expect(
      await send("POST", "/api/runs", JSON.stringify({ agent: uid("no-such-agent"), input: {} }) + " ".repeat(1500)),
    ).toMatchObject({ status: 404 });
  });

  it("refuses by Content-Length before reading anything, and stops reading a body without one at the limit", async () => {
    process.env.TETHER_MAX_BODY_BYTES = "65536";
    const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
    // 8 MiB of whitespace, pulled chunk by chunk (highWaterMark 0: nothing is pulled until the reader asks)
    const endless = () => {
      const stream = { pulled: 0, body: null as unknown as ReadableStream<Uint8Array> };
      stream.body = new ReadableStream<Uint8Array>(
        {
          pull: (controller) => {
            if (stream.pulled >= 8 * 1024 * 1024) return controller.close();
            stream.pulled += chunk.byteLength;
            controller.enqueue(chunk);
          },
        },
        { highWaterMark: 0 },
      );
      return stream;
    };
    const post = (body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
      startRunRoute(
        new Request("http://localhost/api/runs", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
          body,
          duplex: "half",
        } as RequestInit),
        { params: Promise.resolve({}) },
      );

    const declared = endless();
    const refused = await post(declared.body, { "content-length": String(10 * 1024 * 1024) });
    expect(refused.status).toBe(413);
    expect(declared.pulled).toBe(0);

    const streamed = endless(); // without the limit all 8 MiB would be read
    const stopped = await post(streamed.body);
    expect(stopped.status).toBe(413);
    expect(await stopped.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
    expect(streamed.pulled).toBeGreaterThan(65536);
    expect(streamed.pulled).toBeLessThanOrEqual(65536 + chunk.byteLength);
  });

  it("a body nested deeper than 64 levels gets 400 with a clear message and starts no run", async () => {
    const key = uid("deep");
    const deep = await send(
      "POST",
      "/api/runs",
      `{"agent":"refund-agent","input":{"orderId":"ord_1001","x":${nested(50_000)}},"idempotencyKey":"${key}"}`,
    );
    expect(deep).toEqual({
      status: 400,
      json: {
        error: { code: "INVALID_INPUT", message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.` },
      },
    });
    expect(await runsWithKey(key)).toBe(0);
    // brackets inside strings are text, not nesting
    expect(
      await send(
        "POST",
        "/api/runs",
        JSON.stringify({ agent: uid("no-such-agent"), input: { note: "[{".repeat(100) } }),
      ),
    ).toMatchObject({ status: 404 });
    // exactly 64 levels (the body object + 63 arrays) is read; 65 is not
    expect(
      await send("POST", "/api/runs", `{"agent":"${uid("no-such-agent")}","input":${nested(MAX_JSON_DEPTH - 1)}}`),
    ).toMatchObject({ status: 404 });
    expect(
      await send("POST", "/api/runs", `{"agent":"${uid("no-such-agent")}","input":${nested(MAX_JSON_DEPTH)}}`),
    ).toMatchObject({ status: 400 });
  });

  it("the sandbox routes read bodies within the same limits, in the sandbox's error shape", async () => {
    process.env.TETHER_MAX_BODY_BYTES = "4096";
    process.env.TETHER_SANDBOX = "1"; // on Postgres too (off by default outside demo mode)
    const admin = (await createPersonWithToken(db, { role: "admin", scopes: ["admin"] })).token;
    const id = uid("doc");
    const putDoc = (body: string) => send("PUT", `/api/sandbox/docs/${id}`, body, { authorization: `Bearer ${admin}` });
    expect(await putDoc(JSON.stringify({ title: "Big", body: "x".repeat(5000) }))).toEqual({
      status: 413,
      json: {
        error: { code: "payload_too_large", message: "The request body is larger than the limit of 4096 bytes." },
      },
    });
    expect(await putDoc(`{"title":"Deep","body":"x","extra":${nested(1000)}}`)).toEqual({
      status: 400,
      json: {
        error: { code: "invalid_input", message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.` },
      },
    });
    expect(await db.sandboxDoc.count({ where: { id } })).toBe(0);
    expect(await putDoc(JSON.stringify({ title: "Small", body: "x".repeat(1000) }))).toMatchObject({ status: 201 });
    expect(await db.sandboxDoc.count({ where: { id } })).toBe(1);
  });
});
