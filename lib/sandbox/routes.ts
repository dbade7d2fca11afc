import { z } from "zod";
import type { Db } from "@/lib/db";
import { noSandboxRoute } from "./access";
import {
  completeDeploy,
  completeDeploySchema,
  findDeploys,
  findDeploysSchema,
  getDeploy,
  startDeploy,
  startDeploySchema,
} from "./deploys";
import { docIdSchema, findDocs, findDocsSchema, putDoc, putDocSchema } from "./docs";
import { createDraft, createDraftSchema } from "./drafts";
import { sandboxError } from "./errors";
import {
  findFaults,
  putFault,
  putFaultSchema,
  SANDBOX_SYSTEMS,
  sandboxSystemSchema,
  type SandboxSystem,
} from "./faults";
import {
  errorResponse,
  handleSandboxRequest,
  json,
  parseBody,
  parseQuery,
  parseWith,
  pathParams,
  readCaller,
  requireIdempotencyKey,
} from "./http";
import { findLedgerEntries } from "./ledger";
import { findSentMail, findSentMailSchema, sendMail, sendMailSchema } from "./mail";
import { createOrder, createOrderSchema, findCustomerOrders, getOrder } from "./orders";
import { chargePayment, paymentRequestSchema, refundPayment } from "./payments";
import { resetSandbox } from "./seed";
import { getTicket } from "./tickets";

// The sandbox world's HTTP surface as one table (pattern → method → handler). Two servers serve it and
// nothing else: Next.js through the catch-all app/api/sandbox/[...path]/route.ts, and startSandboxServer
// (http-server.ts) for scripts and tests without a build — so both answer every path, method and error alike.
// Handlers only parse, call one function of the world and respond; handleSandboxRequest checks the
// credential and applies the fault knobs first (http.ts).

export const SANDBOX_BASE_PATH = "/api/sandbox";

type Params = Promise<Record<string, string>>;
type SandboxHandler = (request: Request, params: Params) => Promise<Response>;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];
type SandboxRoute = { pattern: string; handlers: Partial<Record<Method, SandboxHandler>> };

const ledgerQuerySchema = z.object({
  runId: z.string().min(1).optional(),
  operationId: z.string().min(1).optional(),
  system: z.string().min(1).optional(),
});

/** Effect calls with an Idempotency-Key: a replay answers the stored response with `Idempotent-Replayed: true`. */
function replayHeaders(replayed: boolean) {
  return replayed ? { "Idempotent-Replayed": "true" } : undefined;
}

/** GET → the record `get` reads by the path's id; it throws the 404 when there is none. */
function recordRoute(
  pattern: string,
  system: SandboxSystem,
  get: (db: Db, id: string) => Promise<unknown>,
): SandboxRoute {
  return {
    pattern,
    handlers: {
      GET: (request, params) =>
        handleSandboxRequest(request, { system }, async ({ db }) => json(await get(db, (await pathParams(params)).id))),
    },
  };
}

/** POST `{ orderId, amountCents }` + Idempotency-Key → 200 receipt. */
function paymentRoute(pattern: string, pay: typeof refundPayment | typeof chargePayment): SandboxRoute {
  return {
    pattern,
    handlers: {
      POST: (request) =>
        handleSandboxRequest(request, { system: "payments", effect: true }, async ({ db }) => {
          const idempotencyKey = requireIdempotencyKey(request);
          const input = await parseBody(request, paymentRequestSchema);
          const { receipt, replayed } = await pay(db, { ...input, idempotencyKey, caller: readCaller(request) });
          return json(receipt, 200, replayHeaders(replayed));
        }),
    },
  };
}

export const SANDBOX_ROUTES: SandboxRoute[] = [
  {
    // POST `{ amountCents, id?, customerEmail?, customerName?, currency?, cardLast4? }` → 201 a paid order (409 when
    // the id exists). A control route: tests, evals and the e2e specs set up the world with it; no fault knobs.
    pattern: "orders",
    handlers: {
      POST: (request) =>
        handleSandboxRequest(request, {}, async ({ db }) =>
          json(await createOrder(db, await parseBody(request, createOrderSchema)), 201),
        ),
    },
  },
  // GET → the order (404 `not_found`).
  recordRoute("orders/[id]", "payments", getOrder),
  {
    // GET → `{ orders }`, newest first (empty for an unknown customer).
    pattern: "customers/[email]/orders",
    handlers: {
      GET: (request, params) =>
        handleSandboxRequest(request, { system: "payments" }, async ({ db }) =>
          json({ orders: await findCustomerOrders(db, (await pathParams(params)).email) }),
        ),
    },
  },
  paymentRoute("payments/refunds", refundPayment),
  paymentRoute("payments/charges", chargePayment),
  {
    // POST `{ to, subject, body }` (+ X-Tether-Operation-Id) → 200. Not idempotent.
    pattern: "mail/send",
    handlers: {
      POST: (request) =>
        handleSandboxRequest(request, { system: "mail", effect: true }, async ({ db }) => {
          const input = await parseBody(request, sendMailSchema);
          return json(await sendMail(db, { ...input, caller: readCaller(request) }));
        }),
    },
  },
  {
    // GET ?operationId=… → `{ message }`: the first message sent with it, or null.
    pattern: "mail/sent",
    handlers: {
      GET: (request) =>
        handleSandboxRequest(request, { system: "mail" }, async ({ db }) =>
          json({ message: await findSentMail(db, parseQuery(request, findSentMailSchema).operationId) }),
        ),
    },
  },
  {
    // GET ?migration=…&runId=… (one or both) → `{ deploys }` newest first.
    // POST `{ migration, runId? }` → 202 `{ deployId, status: "running" }`. Unsafe.
    pattern: "deploys",
    handlers: {
      GET: (request) =>
        handleSandboxRequest(request, { system: "deploys" }, async ({ db }) =>
          json({ deploys: await findDeploys(db, parseQuery(request, findDeploysSchema)) }),
        ),
      POST: (request) =>
        handleSandboxRequest(request, { system: "deploys", effect: true }, async ({ db }) => {
          const input = await parseBody(request, startDeploySchema);
          return json(await startDeploy(db, { ...input, caller: readCaller(request) }), 202);
        }),
    },
  },
  // GET → `{ deployId, migration, status, runId, startedAt, completedAt }` (404 `not_found`).
  recordRoute("deploys/[id]", "deploys", getDeploy),
  {
    // POST `{ outcome, deliveries? }` → 200 deploy + `delivered`, after the completion callback ran `deliveries`
    // times. A control route (tests, evals, demo): no fault knobs.
    pattern: "deploys/[id]/complete",
    handlers: {
      POST: (request, params) =>
        handleSandboxRequest(request, {}, async ({ db, onDeployFinished }) => {
          const { id } = await pathParams(params);
          const input = await parseBody(request, completeDeploySchema);
          return json(await completeDeploy(db, id, input, onDeployFinished));
        }),
    },
  },
  {
    // GET ?query=… → `{ docs }` whose title or body contains the query (case-insensitive).
    pattern: "docs",
    handlers: {
      GET: (request) =>
        handleSandboxRequest(request, { system: "docs" }, async ({ db }) => {
          const { query } = parseQuery(request, findDocsSchema);
          return json({ docs: await findDocs(db, query) });
        }),
    },
  },
  {
    // PUT `{ title?, body }` → 200 the changed doc, or 201 a new one (title required). A control route: tests and
    // evals change the world with it; no fault knobs, no ledger row.
    pattern: "docs/[id]",
    handlers: {
      PUT: (request, params) =>
        handleSandboxRequest(request, {}, async ({ db }) => {
          const id = parseWith(docIdSchema, (await pathParams(params)).id, "doc id");
          const input = await parseBody(request, putDocSchema);
          const { doc, created } = await putDoc(db, id, input);
          return json(doc, created ? 201 : 200);
        }),
    },
  },
  // GET → `{ id, subject, body, status, customerEmail, createdAt }` (404 `not_found`).
  recordRoute("tickets/[id]", "tickets", getTicket),
  {
    // POST `{ kind, content }` + Idempotency-Key → 200 `{ draftId }`; idempotent by key.
    pattern: "drafts",
    handlers: {
      POST: (request) =>
        handleSandboxRequest(request, { system: "drafts", effect: true }, async ({ db }) => {
          const idempotencyKey = requireIdempotencyKey(request);
          const input = await parseBody(request, createDraftSchema);
          const { draftId, replayed } = await createDraft(db, {
            ...input,
            idempotencyKey,
            caller: readCaller(request),
          });
          return json({ draftId }, 200, replayHeaders(replayed));
        }),
    },
  },
  {
    // GET ?runId=&operationId=&system= → `{ entries }`, every effect applied, oldest first.
    pattern: "ledger",
    handlers: {
      GET: (request) =>
        handleSandboxRequest(request, {}, async ({ db }) =>
          json({ entries: await findLedgerEntries(db, parseQuery(request, ledgerQuerySchema)) }),
        ),
    },
  },
  {
    // GET → `{ faults }`: the knobs of every system (defaults where none were set).
    pattern: "faults",
    handlers: {
      GET: (request) => handleSandboxRequest(request, {}, async ({ db }) => json({ faults: await findFaults(db) })),
    },
  },
  {
    // PUT `{ latencyMs?, errorRate?, timeoutAfterApply?, holdMs? }` → the knob.
    pattern: "faults/[system]",
    handlers: {
      PUT: (request, params) =>
        handleSandboxRequest(request, {}, async ({ db }) => {
          const { system } = await pathParams(params);
          const parsed = sandboxSystemSchema.safeParse(system);
          if (!parsed.success)
            throw sandboxError("NOT_FOUND", `No such system: '${system}' (one of ${SANDBOX_SYSTEMS.join(", ")}).`);
          return json(await putFault(db, parsed.data, await parseBody(request, putFaultSchema)));
        }),
    },
  },
  {
    // POST → empties the world (ledger and fault knobs too) and seeds the starting one.
    pattern: "reset",
    handlers: {
      POST: (request) =>
        handleSandboxRequest(request, {}, async ({ db }) => {
          await resetSandbox(db);
          return json({ ok: true });
        }),
    },
  },
];

const COMPILED = SANDBOX_ROUTES.map((route) => ({ route, segments: route.pattern.split("/") }));

/** The route for a path under /api/sandbox and its raw (still encoded) parameters; pathParams decodes them once. */
export function matchSandboxRoute(pathname: string): { route: SandboxRoute; params: Record<string, string> } | null {
  if (pathname !== SANDBOX_BASE_PATH && !pathname.startsWith(`${SANDBOX_BASE_PATH}/`)) return null;
  const parts = pathname
    .slice(SANDBOX_BASE_PATH.length + 1)
    .split("/")
    .filter(Boolean);
  for (const { route, segments } of COMPILED) {
    if (segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = segments.every((segment, i) => {
      if (!segment.startsWith("[")) return segment === parts[i];
      params[segment.slice(1, -1)] = parts[i];
      return true;
    });
    if (matches) return { route, params };
  }
  return null;
}

/**
 * Serves one request to the sandbox world. An unknown path is a 404 and a method the route lacks a 405 (with
 * `Allow`), both after the same credential check as every route, so a caller without one learns nothing about
 * which paths exist. HEAD is answered as GET.
 */
export async function serveSandboxRequest(request: Request): Promise<Response> {
  const method = request.method.toUpperCase();
  const pathname = new URL(request.url).pathname;
  const found = matchSandboxRoute(pathname);
  const handler = found ? found.route.handlers[(method === "HEAD" ? "GET" : method) as Method] : undefined;
  if (found && handler) return handler(request, Promise.resolve(found.params));
  return handleSandboxRequest(request, {}, async () => {
    if (!found) throw noSandboxRoute(request);
    const allowed = METHODS.filter((m) => found.route.handlers[m]).join(", ");
    const response = errorResponse(
      sandboxError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${pathname} (allowed: ${allowed}).`),
    );
    response.headers.set("allow", allowed);
    return response;
  });
}
