import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Db } from "@/lib/db";
import { openSandboxAccess, type SandboxAccess } from "./access";
import { getDeployCallback, type DeployCallback } from "./callbacks";
import { runInSandboxScope } from "./context";
import { errorResponse, isLostResponse } from "./http";
import { SANDBOX_BASE_PATH, serveSandboxRequest } from "./routes";

// The sandbox world on a plain node:http server, for seed scripts and tests (no `next build`): it turns
// each IncomingMessage into a Request, serves it from the same route table as Next.js's catch-all
// (routes.ts), and writes the Response back. Each request runs in a scope with
// this server's database, deploy hook, random source and credential gate (context.ts). A lost response
// (timeoutAfterApply) is a destroyed socket here: the client gets no HTTP answer at all.
//
// Credentials: this server is a harness that a script or test starts for itself on a free port, not the
// console's /api/sandbox (that one is gated: access.ts). It is open by default — the seed and the evals
// call it with plain fetch — and an open one listens on a loopback address only; pass `access` (e.g.
// createSandboxAccess({ env })) to gate it like the console's.

export type SandboxServerOptions = {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Overrides the process-wide hook from setDeployCallback for this server's requests. */
  onDeployFinished?: DeployCallback;
  /** Decides injected errors (a request fails when random() < errorRate); default Math.random. */
  random?: () => number;
  /** Who may make a request (access.ts); default open, which needs a loopback `host`. */
  access?: SandboxAccess;
};

export type SandboxServer = {
  /** e.g. http://127.0.0.1:41234/api/sandbox */
  url: string;
  close: () => Promise<void>;
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function toRequest(req: IncomingMessage, url: URL, body: string | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(url, { method: req.method, headers, body, signal });
}

async function writeResponse(res: ServerResponse, response: Response) {
  if (isLostResponse(response)) {
    res.destroy();
    return;
  }
  const payload = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
  res.end(payload);
}

async function route(req: IncomingMessage, signal: AbortSignal): Promise<Response> {
  const method = (req.method ?? "GET").toUpperCase();
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
  const body = method === "GET" || method === "HEAD" ? undefined : await readBody(req);
  return serveSandboxRequest(toRequest(req, url, body, signal));
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export async function startSandboxServer(db: Db, options: SandboxServerOptions = {}): Promise<SandboxServer> {
  const host = options.host ?? "127.0.0.1";
  if (!options.access && !LOOPBACK.has(host))
    throw new Error(
      `startSandboxServer: an open sandbox listens on a loopback address only; pass { access } to serve ${host}`,
    );
  const access = options.access ?? openSandboxAccess;
  const inFlight = new Set<{ controller: AbortController; done: Promise<void> }>();

  const server = createServer((req, res) => {
    const controller = new AbortController();
    // The client went away (or gave up) before the answer: stop waiting on its behalf.
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const context = {
      db,
      random: options.random ?? Math.random,
      onDeployFinished: options.onDeployFinished ?? getDeployCallback(),
      access,
    };
    const entry = {
      controller,
      done: runInSandboxScope(context, async () => {
        try {
          await writeResponse(res, await route(req, controller.signal));
        } catch (error) {
          if (!res.headersSent) await writeResponse(res, errorResponse(error)).catch(() => res.destroy());
          else res.destroy();
        }
      }),
    };
    inFlight.add(entry);
    void entry.done.finally(() => inFlight.delete(entry));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}${SANDBOX_BASE_PATH}`,
    /** Stops listening, cuts open connections, ends held responses early and waits for handlers to finish. */
    close: async () => {
      for (const entry of inFlight) entry.controller.abort();
      server.closeAllConnections();
      await Promise.allSettled([...inFlight].map((entry) => entry.done));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
