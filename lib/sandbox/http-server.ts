import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Db } from "@/lib/db";
// The app's own route modules: this server serves exactly what Next.js serves at /api/sandbox.
import * as customerOrders from "@/app/api/sandbox/customers/[email]/orders/route";
import * as deployComplete from "@/app/api/sandbox/deploys/[id]/complete/route";
import * as deploy from "@/app/api/sandbox/deploys/[id]/route";
import * as deploys from "@/app/api/sandbox/deploys/route";
import * as doc from "@/app/api/sandbox/docs/[id]/route";
import * as docs from "@/app/api/sandbox/docs/route";
import * as drafts from "@/app/api/sandbox/drafts/route";
import * as fault from "@/app/api/sandbox/faults/[system]/route";
import * as faults from "@/app/api/sandbox/faults/route";
import * as ledger from "@/app/api/sandbox/ledger/route";
import * as mailSend from "@/app/api/sandbox/mail/send/route";
import * as mailSent from "@/app/api/sandbox/mail/sent/route";
import * as order from "@/app/api/sandbox/orders/[id]/route";
import * as orders from "@/app/api/sandbox/orders/route";
import * as charges from "@/app/api/sandbox/payments/charges/route";
import * as refunds from "@/app/api/sandbox/payments/refunds/route";
import * as reset from "@/app/api/sandbox/reset/route";
import * as ticket from "@/app/api/sandbox/tickets/[id]/route";
import { noSandboxRoute, openSandboxAccess, type SandboxAccess } from "./access";
import { getDeployCallback, type DeployCallback } from "./callbacks";
import { runInSandboxScope } from "./context";
import { SandboxError } from "./errors";
import { errorResponse, handleSandboxRequest, isLostResponse } from "./http";

// The sandbox world on a plain node:http server, for seed scripts and tests (no `next build`): it turns
// each IncomingMessage into a Request, calls the matching route module's GET/POST/PUT with
// `{ params: Promise }` as Next.js does, and writes the Response back. Each request runs in a scope with
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

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
type RouteModule = Partial<Record<string, Handler>>;

const BASE = "/api/sandbox";
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

const ROUTES = (
  [
    ["orders", orders],
    ["orders/[id]", order],
    ["customers/[email]/orders", customerOrders],
    ["payments/refunds", refunds],
    ["payments/charges", charges],
    ["mail/send", mailSend],
    ["mail/sent", mailSent],
    ["deploys", deploys],
    ["deploys/[id]", deploy],
    ["deploys/[id]/complete", deployComplete],
    ["docs", docs],
    ["docs/[id]", doc],
    ["tickets/[id]", ticket],
    ["drafts", drafts],
    ["ledger", ledger],
    ["faults", faults],
    ["faults/[system]", fault],
    ["reset", reset],
  ] as Array<[string, unknown]>
).map(([pattern, module]) => ({ segments: pattern.split("/"), module: module as RouteModule }));

function match(pathname: string): { module: RouteModule; params: Record<string, string> } | null {
  if (pathname !== BASE && !pathname.startsWith(`${BASE}/`)) return null;
  const parts = pathname.slice(BASE.length + 1).split("/").filter(Boolean);
  for (const route of ROUTES) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = route.segments.every((segment, i) => {
      if (segment.startsWith("[")) return (params[segment.slice(1, -1)] = decodeSegment(parts[i])) !== "";
      return segment === parts[i];
    });
    if (matches) return { module: route.module, params };
  }
  return null;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

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
  const found = match(url.pathname);
  const handler = found?.module[method];
  if (!found || !handler) {
    // As under Next.js (app/api/sandbox/[...path]): the credential is checked first, then 404 / 405.
    const request = toRequest(req, url, undefined, signal);
    return handleSandboxRequest(request, {}, async () => {
      if (!found) throw noSandboxRoute(request);
      const allowed = METHODS.filter((m) => found.module[m]).join(", ");
      const response = errorResponse(new SandboxError("method_not_allowed", `${method} is not allowed on ${url.pathname} (allowed: ${allowed}).`));
      response.headers.set("allow", allowed);
      return response;
    });
  }
  const body = method === "GET" || method === "HEAD" ? undefined : await readBody(req);
  return handler(toRequest(req, url, body, signal), { params: Promise.resolve(found.params) });
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export async function startSandboxServer(db: Db, options: SandboxServerOptions = {}): Promise<SandboxServer> {
  const host = options.host ?? "127.0.0.1";
  if (!options.access && !LOOPBACK.has(host)) throw new Error(`startSandboxServer: an open sandbox listens on a loopback address only; pass { access } to serve ${host}`);
  const access = options.access ?? openSandboxAccess;
  const inFlight = new Set<{ controller: AbortController; done: Promise<void> }>();

  const server = createServer((req, res) => {
    const controller = new AbortController();
    // The client went away (or gave up) before the answer: stop waiting on its behalf.
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const context = { db, random: options.random ?? Math.random, onDeployFinished: options.onDeployFinished ?? getDeployCallback(), access };
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
    url: `http://${urlHost}:${address.port}${BASE}`,
    /** Stops listening, cuts open connections, ends held responses early and waits for handlers to finish. */
    close: async () => {
      for (const entry of inFlight) entry.controller.abort();
      server.closeAllConnections();
      await Promise.allSettled([...inFlight].map((entry) => entry.done));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
