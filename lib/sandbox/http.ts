import { z } from "zod";
import { BodyRejected, holdsNulCharacter, readJsonBody } from "@/lib/api/body";
import { getSandboxContext, type SandboxContext } from "./context";
import type { AppError } from "@/lib/runtime/errors";
import { INTERNAL_ERROR, presentSandboxError, sandboxError } from "./errors";
import { injectFaultsBefore, sleep, takeLostResponse, type SandboxSystem } from "./faults";
import type { Caller } from "./ledger";

// The few things every sandbox route handler does, so that a handler is: parse → call one function → respond.
// `handleSandboxRequest` first checks the request's credential (the context's gate, access.ts: 404
// while the sandbox is off, 401/403 without an admin's or the internal credential), then applies the
// system's fault knobs around the handler and maps every error to
// `{ "error": { "code", "message", "fields"? } }` (an unexpected error becomes a generic 500: no raw
// exception text leaves the process).
//
// A lost response (timeoutAfterApply): the effect is committed, then the response is held for holdMs
// (or until the client disconnects). Then
//   - under startSandboxServer, the socket is destroyed without a response: the client sees its own
//     timeout if it is shorter than holdMs, else a connection reset (fetch rejects, "other side closed");
//   - under Next.js, which cannot drop a socket from a route, the client gets 504 `timeout` — what a
//     gateway answers when the upstream never did; the body says the request may have been applied.
// Either way the client cannot tell whether the effect happened.

export type RouteOptions = {
  /** Whose fault knobs apply. Control routes (reset, faults, ledger, doc edits, deploy completion) have none. */
  system?: SandboxSystem;
  /** An effect call: its successful responses can be lost (timeoutAfterApply). */
  effect?: boolean;
};

const lostResponses = new WeakSet<Response>();

/** True for the 504 that stands for "no answer": startSandboxServer drops the connection instead. */
export function isLostResponse(response: Response): boolean {
  return lostResponses.has(response);
}

export async function handleSandboxRequest(
  request: Request,
  options: RouteOptions,
  handler: (context: SandboxContext) => Promise<Response>,
): Promise<Response> {
  const context = getSandboxContext();
  try {
    await context.access(request, context.db);
    if (options.system) await injectFaultsBefore(context.db, options.system, context.random, request.signal);
    const response = await handler(context);
    if (options.system && options.effect && response.ok) {
      const holdMs = await takeLostResponse(context.db, options.system);
      if (holdMs !== null) {
        await sleep(holdMs, request.signal);
        const lost = errorResponse(
          sandboxError("TIMEOUT", "The upstream did not answer in time. The request may or may not have been applied."),
        );
        lostResponses.add(lost);
        return lost;
      }
    }
    return response;
  } catch (error) {
    return errorResponse(error);
  }
}

export function errorResponse(error: unknown): Response {
  const presented = presentSandboxError(error);
  if (presented) return json(presented.body, presented.status);
  console.error("[sandbox] unexpected error", error);
  return json(INTERNAL_ERROR.body, INTERNAL_ERROR.status);
}

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return Response.json(body, { status, headers });
}

function invalid(where: string, error: z.ZodError): AppError {
  const fields: Record<string, string[]> = {};
  const parts = error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    (fields[path || "_"] ??= []).push(issue.message);
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  return sandboxError("INVALID_INPUT", `Invalid ${where}: ${parts.join("; ")}`, fields);
}

export function parseWith<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  if (holdsNulCharacter(value))
    throw sandboxError("INVALID_INPUT", `Invalid ${where}: it holds a NUL character (\\u0000).`);
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(where, result.error);
  return result.data;
}

/**
 * The JSON body, validated. A missing body counts as `{}`, so the schema names the missing fields. Read
 * within the console's size and depth limits (lib/api/body.ts): too large → 413, too deep → 400.
 */
export async function parseBody<T extends z.ZodType>(request: Request, schema: T): Promise<z.infer<T>> {
  let value: unknown;
  try {
    value = await readJsonBody(request);
  } catch (error) {
    if (!(error instanceof BodyRejected)) throw error;
    if (error.reason === "too_large") throw sandboxError("PAYLOAD_TOO_LARGE", error.message);
    throw sandboxError("INVALID_INPUT", error.reason === "too_deep" ? error.message : "The request body must be JSON.");
  }
  return parseWith(schema, value, "request body");
}

export function parseQuery<T extends z.ZodType>(request: Request, schema: T): z.infer<T> {
  return parseWith(schema, Object.fromEntries(new URL(request.url).searchParams), "query");
}

/** A path segment as the caller meant it (decoded once, whichever server decoded it before). */
export async function pathParams<K extends string>(params: Promise<Record<K, string>>): Promise<Record<K, string>> {
  const raw = await params;
  const out = {} as Record<K, string>;
  for (const key of Object.keys(raw) as K[]) {
    try {
      out[key] = raw[key].includes("%") ? decodeURIComponent(raw[key]) : raw[key];
    } catch {
      out[key] = raw[key];
    }
  }
  if (holdsNulCharacter(out)) throw sandboxError("INVALID_INPUT", "Invalid path: it holds a NUL character (\\u0000).");
  return out;
}

const headerValue = z.string().trim().min(1).max(255);

function header(request: Request, name: string): string | null {
  const value = request.headers.get(name);
  if (value === null) return null;
  const parsed = headerValue.safeParse(value);
  if (!parsed.success) throw sandboxError("INVALID_INPUT", `Invalid ${name} header: it must be 1 to 255 characters.`);
  return parsed.data;
}

/** The run and operation the request acts for (`X-Tether-Run-Id`, `X-Tether-Operation-Id`), for the ledger. */
export function readCaller(request: Request): Caller {
  return { runId: header(request, "x-tether-run-id"), operationId: header(request, "x-tether-operation-id") };
}

export function requireIdempotencyKey(request: Request): string {
  const key = header(request, "idempotency-key");
  if (!key) throw sandboxError("INVALID_INPUT", "The Idempotency-Key header is required for this request.");
  return key;
}
