import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolCallContext } from "../lib/runtime";
import { createSandboxClient } from "../lib/tools/http";
import { httpTool } from "../lib/tools/registered/http-tool";

// The two HTTP paths a tool call takes — the built-in tools' sandbox client (lib/tools/http.ts) and an admin's
// registered HTTP tool (lib/tools/registered/http-tool.ts) — classify a redirect and a cut-off body alike
// (lib/tools/http-outcome.ts): a redirect is never followed (after a GET nothing changed; after a write it
// may have been applied), and a status without its whole body is an unknown outcome.

/** A server with a redirect, a 303 "see other" and a body cut off mid-way; it counts what reaches it. */
async function startServer() {
  const hits: string[] = [];
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === "/moved") return void res.writeHead(302, { location: "/target" }).end();
    if (req.url === "/see-other") return void res.writeHead(303, { location: "/target" }).end();
    if (req.url === "/cut") {
      // Promises a longer body than it sends, then hangs up once what it sent has left.
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      return void res.write('{"refundId":', () => res.socket?.destroy());
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }));
  };
  // The request body is read first, so hanging up never discards an unread request.
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { host: `127.0.0.1:${port}`, url: `http://127.0.0.1:${port}`, hits, close };
}

const ctx = (): ToolCallContext => ({
  runId: "run_h",
  step: 0,
  operationId: "op_h",
  idempotencyKey: "op_h",
  attempt: 1,
});

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

type Send = (method: "GET" | "POST", path: string) => Promise<unknown>;

const paths: Array<[string, () => Send]> = [
  [
    "the sandbox client",
    () => {
      const client = createSandboxClient({ sandboxUrl: server.url });
      return (method, path) => (method === "GET" ? client.get(path, ctx()) : client.post(path, ctx(), { body: {} }));
    },
  ],
  [
    "a registered HTTP tool",
    () => (method, path) => {
      const base = {
        name: "http.probe",
        description: "Probe.",
        capability: "execute" as const,
        semantics: "unsafe" as const,
        input: z.record(z.string(), z.unknown()),
        impact: () => "probes",
      };
      return httpTool(base, { url: `${server.url}${path}`, method }, { egress: { allowedHosts: [server.host] } }).run(
        {},
        ctx(),
      );
    },
  ],
];

describe.each(paths)("%s", (_name, makeSend) => {
  const send = (method: "GET" | "POST", path: string) => makeSend()(method, path);

  it("answers with the JSON body when all goes well (the server is reachable)", async () => {
    expect(await send("GET", "/ok")).toEqual({ ok: true });
  });

  it("does not follow a redirect after a GET, and says nothing changed", async () => {
    const before = server.hits.length;
    await expect(send("GET", "/moved")).rejects.toMatchObject({
      name: "ToolError",
      errorClass: "rejected",
      outcome: "not_applied",
      details: { status: 302 },
      message: expect.stringMatching(/HTTP 302 redirect \(not followed\)$/),
    });
    expect(server.hits.slice(before)).toEqual(["GET /moved"]);
  });

  it("does not follow a redirect after a write, and says it may have been applied", async () => {
    const before = server.hits.length;
    await expect(send("POST", "/see-other")).rejects.toMatchObject({
      name: "ToolError",
      errorClass: "invalid_output",
      outcome: "unknown",
      details: { status: 303 },
      message: expect.stringMatching(/HTTP 303 redirect \(not followed\); the request may have been applied$/),
    });
    expect(server.hits.slice(before)).toEqual(["POST /see-other"]);
  });

  it.each(["GET", "POST"] as const)("a %s whose body is cut off has an unknown outcome", async (method) => {
    await expect(send(method, "/cut")).rejects.toMatchObject({
      name: "ToolError",
      errorClass: "network",
      outcome: "unknown",
      message: expect.stringMatching(/HTTP 200, the response body was cut off$/),
    });
  });
});
